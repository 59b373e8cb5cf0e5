import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { it } from "node:test";
import { fileURLToPath } from "node:url";
import { SessionTree } from "../../../src/core/tree.js";
import { decodeSession } from "../../../src/format/jsonl/decode.js";
import { MemoryStore } from "../../../src/store/memory/memory-store.js";
import { chain, ids, make, newOwner, rejectsWith, type SpecContext } from "./helpers.js";

const FIXTURES = ["large-session.jsonl", "before-compaction.jsonl"];
/** pi's own test sessions, beside the work tree (../shared/fixtures/pi), or where SESSIONTREE_PI_FIXTURES says. */
const FIXTURE_DIR =
  process.env.SESSIONTREE_PI_FIXTURES ??
  fileURLToPath(new URL("../../../../shared/fixtures/pi/", import.meta.url));
const fixturePath = (name: string) => join(FIXTURE_DIR, name);

/** What reading a file with core's tree gives: the reference for leaf and entries. */
function readWithCore(jsonl: string) {
  const tree = new SessionTree();
  for (const { entry } of decodeSession(jsonl).entries) tree.load(entry);
  return { entries: tree.getEntries(), leafId: tree.getLeafId() };
}

export function transferSpec(ctx: SpecContext): void {
  it("exports pi v3 JSONL that imports into another backend as the same session", async () => {
    const owner = newOwner();
    const { id } = await ctx.store().createSession(owner, { cwd: "/w", name: "Transfer" });
    const label = make.entry("label", "lbl", "t-3", { targetId: "t-1", label: "here" });
    await ctx.store().appendEntries(owner, id, [...chain("t", 4), label, make.user("alt", "t-1", "other")]);
    await ctx.store().setLeaf(owner, id, "t-3"); // a leaf that is not the last entry
    const jsonl = await ctx.store().exportJsonl(owner, id);
    const lines = jsonl
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    assert.equal(lines[0].type, "session");
    assert.equal(lines[0].version, 3);
    assert.equal(lines[0].id, id);
    assert.deepEqual(readWithCore(jsonl).leafId, "t-3");

    const other = new MemoryStore();
    const imported = await other.importJsonl(owner, jsonl);
    const [a, b] = [await ctx.store().loadSession(owner, id), await other.loadSession(owner, id)];
    assert.deepEqual(b.entries, a.entries);
    assert.deepEqual(b.header, a.header);
    assert.equal(imported.leafId, "t-3");
    assert.equal(imported.name, "Transfer");
    assert.equal(imported.entryCount, a.summary.entryCount);
    assert.equal(imported.firstMessage, a.summary.firstMessage);
  });

  it("imports its own export as a new session (newId) and refuses the same id twice", async () => {
    const owner = newOwner();
    const { id } = await ctx.store().createSession(owner);
    await ctx.store().appendEntries(owner, id, chain("n", 3));
    const jsonl = await ctx.store().exportJsonl(owner, id);
    await rejectsWith(ctx.store().importJsonl(owner, jsonl), "conflict");
    const copy = await ctx.store().importJsonl(owner, jsonl, { newId: true });
    assert.notEqual(copy.id, id);
    assert.equal(copy.leafId, "n-2");
    assert.deepEqual(ids((await ctx.store().loadSession(owner, copy.id)).entries), ["n-0", "n-1", "n-2"]);
  });

  for (const name of FIXTURES) {
    it(`imports pi's ${name} keeping ids, parents, payloads and leaf, and round-trips it`, async () => {
      const owner = newOwner();
      const text = readFileSync(fixturePath(name), "utf8");
      const summary = await ctx.store().importJsonl(owner, text);
      const stored = await ctx.store().loadSession(owner, summary.id);
      assert.ok(stored.entries.length > 100);
      assert.equal(stored.header.version, 3);
      const again = await new MemoryStore().importJsonl(
        owner,
        await ctx.store().exportJsonl(owner, summary.id),
      );
      assert.equal(again.leafId, summary.leafId);
      assert.equal(again.entryCount, summary.entryCount);
      const reread = readWithCore(await ctx.store().exportJsonl(owner, summary.id));
      assert.deepEqual(reread.entries, stored.entries);
      assert.equal(reread.leafId, summary.leafId);
      assert.equal(summary.leafId, stored.entries[stored.entries.length - 1]?.id);
      assert.ok(summary.firstMessage.length > 0);
    });
  }

  it("imports a file whose entries another writer named otherwise, as a file read keeps them", async () => {
    const owner = newOwner();
    const header = make.header({ id: `odd-${Date.now()}`, cwd: "/x" });
    const entries = [
      ...chain("o", 2),
      make.entry("model_change", "o-m", "o-1", { model: "openai/gpt-5.2" }),
      make.entry("compaction", "o-c", "o-m", { summary_text: "so far", tokens_before: 10 }),
      make.user("o-2", "o-c", "after them"),
    ];
    const jsonl = `${[header, ...entries].map((line) => JSON.stringify(line)).join("\n")}\n`;
    const summary = await ctx.store().importJsonl(owner, jsonl);
    assert.equal(summary.leafId, "o-2");
    const stored = await ctx.store().loadSession(owner, summary.id);
    assert.deepEqual(stored.entries, entries);
    assert.deepEqual(readWithCore(await ctx.store().exportJsonl(owner, summary.id)).entries, entries);
  });

  it("imports a v3 file with labels, branches and a leaf marker", async () => {
    const owner = newOwner();
    const header = make.header({ id: `imp-${Date.now()}`, cwd: "/x" });
    const entries = [
      make.user("a1", null, "hello"),
      make.assistant("a2", "a1", "hi"),
      make.user("b1", "a2", "branch one"),
      make.user("c1", "a2", "branch two"),
      make.entry("label", "lb", "c1", { targetId: "a2", label: "fork" }),
      make.entry("custom", "mk", "b1", { customType: "sessiontree.leaf" }),
    ];
    const jsonl = `${[header, ...entries].map((e) => JSON.stringify(e)).join("\n")}\n`;
    const summary = await ctx.store().importJsonl(owner, jsonl);
    assert.equal(summary.leafId, "b1");
    assert.equal(summary.entryCount, 5);
    const stored = await ctx.store().loadSession(owner, header.id);
    assert.deepEqual(stored.entries, entries.slice(0, 5));
    assert.deepEqual(ids(await ctx.store().readBranch(owner, header.id)), ["a1", "a2", "b1"]);
  });

  it("refuses files that are not sessions or have damaged lines, storing nothing", async () => {
    const owner = newOwner();
    await rejectsWith(ctx.store().importJsonl(owner, "not json\n"), "not_a_session");
    const header = make.header({ id: `bad-${Date.now()}`, cwd: "/x" });
    const damaged = `${JSON.stringify(header)}\n${JSON.stringify(make.user("a", null, "x"))}\n{"broken\n`;
    await rejectsWith(ctx.store().importJsonl(owner, damaged), "invalid_entry");
    const orphan = `${JSON.stringify(header)}\n${JSON.stringify(make.user("a", "nowhere", "x"))}\n`;
    await rejectsWith(ctx.store().importJsonl(owner, orphan), "invalid_entry");
    await rejectsWith(ctx.store().getSummary(owner, header.id), "session_not_found");
  });
}
