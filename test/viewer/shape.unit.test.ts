import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { entryLine } from "../../src/viewer/browser/entry-line.js";
import { INLINE_TEXTS, LoadedSession, TEXT_PAGE } from "../../src/viewer/loaded-session.js";
import { lookAt, type SessionShape } from "../../src/viewer/session-shape.js";
import { type ShapeWire, shapeFromWire, wireShapeJson } from "../../src/viewer/shape-wire.js";
import { bigSessionEntries } from "./support/sessions.js";

/** A session as a source hands it to the viewer's server. */
function loaded(size: number): { session: LoadedSession; big: ReturnType<typeof bigSessionEntries> } {
  const big = bigSessionEntries(size);
  const session = LoadedSession.of({
    key: "k",
    source: "test",
    header: big.header,
    entries: big.entries,
    leafId: big.leafId,
    labels: {},
    name: undefined,
    issues: [],
  });
  return { session, big };
}

describe("a session's shape", () => {
  it("inlines row texts of a small session, each entry's look and text as the rows draw them", () => {
    const { session, big } = loaded(1000);
    const shape = JSON.parse(session.shapeJson());
    assert.equal(shape.ids.length, big.entries.length);
    big.entries.forEach((entry, i) => {
      const line = entryLine(entry);
      assert.equal(shape.texts[i], line.text);
      assert.equal(lookAt(shape.looks, i), line.look);
    });
    assert.equal(shape.firstPrompt, "Prompt 1: do step 1");
    assert.equal(shape.ids[shape.leaf], big.leafId);
  });

  it("leaves a large session's texts out, and makes them a page at a time", () => {
    const { session, big } = loaded(INLINE_TEXTS + 1000);
    const shape = JSON.parse(session.shapeJson());
    assert.equal(shape.texts, null);
    big.entries.forEach((entry, i) => {
      assert.equal(lookAt(shape.looks, i), entryLine(entry).look, `the look of ${entry.id}`);
    });
    const page = session.textsOf(100, 110);
    assert.deepEqual(page, { from: 100, texts: big.entries.slice(100, 110).map((e) => entryLine(e).text) });
    assert.equal(session.textsOf(0, 100_000).texts.length, TEXT_PAGE, "a page at most");
    assert.deepEqual(session.textsOf(big.entries.length + 5, big.entries.length + 9), {
      from: big.entries.length,
      texts: [],
    });
  });
});

describe("a shape on the wire (/api/shape)", () => {
  const shape = (ids: string[], parents: number[]): SessionShape => ({
    key: "k",
    source: "test",
    header: { type: "session", version: 3, id: "h", timestamp: "t", cwd: "/" },
    name: undefined,
    issues: [],
    leaf: ids.length - 1,
    ids,
    parents,
    looks: "a".repeat(ids.length),
    texts: null,
    firstPrompt: "",
    labels: { [ids[0] as string]: "x" },
  });

  it("sends ids of one width as one text and parents as the jumps of the chain, and decodes them", () => {
    const s = shape(["aaaa0001", "aaaa0002", "aaaa0003", "aaaa0004", "aaaa0005"], [-1, 0, 1, 1, -1]);
    const wire = JSON.parse(wireShapeJson(s)) as ShapeWire;
    assert.equal(wire.idText, s.ids.join(""));
    assert.equal(wire.idWidth, 8);
    assert.equal(wire.idEnds, null);
    assert.deepEqual(wire.parentJumps, [3, 1, 4, -1], "only the nodes whose parent is not the one before");
    assert.deepEqual(shapeFromWire(wire), JSON.parse(JSON.stringify(s)));
  });

  it("cuts ids of different lengths where each ends", () => {
    const s = shape(["r", "a-much-longer-id", "Ünïcode ✓", "7"], [-1, 0, 0, 2]);
    const wire = JSON.parse(wireShapeJson(s)) as ShapeWire;
    assert.equal(wire.idWidth, 0);
    assert.deepEqual(wire.idEnds, [1, 17, 26, 27]);
    assert.deepEqual(shapeFromWire(wire), JSON.parse(JSON.stringify(s)));
    const empty = shape([], []);
    assert.deepEqual(
      shapeFromWire(JSON.parse(wireShapeJson(empty)) as ShapeWire),
      JSON.parse(JSON.stringify(empty)),
    );
  });

  it("is what the opening answer holds, with the leaf's entry and context", () => {
    const { session, big } = loaded(INLINE_TEXTS + 1000);
    const opening = shapeFromWire(JSON.parse(session.openingJson(5)) as ShapeWire);
    const { start, startTexts, ...decoded } = opening;
    assert.deepEqual(decoded, JSON.parse(session.shapeJson()));
    assert.equal(start?.entryId, big.leafId);
    assert.equal(start?.messages.length, 5);
    // The row texts of the 256 nodes around the leaf, most of them before it: the rows first drawn.
    const leaf = decoded.ids.indexOf(big.leafId);
    assert.deepEqual(startTexts, session.textsOf(leaf - 192, leaf + 64));
    assert.equal(decoded.texts, null, "a large shape leaves the texts out");
    assert.ok((startTexts?.texts.length ?? 0) > 192);
  });
});
