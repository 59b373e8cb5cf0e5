import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { entryLine } from "../../src/viewer/browser/entry-line.js";
import { INLINE_TEXTS, LoadedSession, TEXT_PAGE } from "../../src/viewer/loaded-session.js";
import { lookAt } from "../../src/viewer/session-shape.js";
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
