import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import type { SessionEntry } from "../../src/core/entry.js";
import { MemoryStore } from "../../src/store/memory/index.js";
import { SqliteStore } from "../../src/store/sqlite/index.js";
import type { SessionStore } from "../../src/store/store.js";
import { make } from "./conformance/helpers.js";

// The branch state of hits in a long session with a fork, where the SQLite store walks from the
// leaf by key (hits near the leaf) or reads the session's links in one pass (hits far from it):
// both must say what the tree says, as the scan of the memory store does.
const OWNER = "owner-walk";
const MAIN = 300;
const FORK_AT = 100;
const FORK = 40;

function text(id: string, i: number, last: number): string {
  const head = i < 5 ? " headword" : "";
  const tail = i > last - 3 ? " tailword" : "";
  return `alpha ${id}${head}${tail}`;
}

function chain(prefix: string, count: number, parent: string | null): SessionEntry[] {
  const entries: SessionEntry[] = [];
  for (let i = 0; i < count; i++) {
    const id = `${prefix}-${i}`;
    const parentId = i === 0 ? parent : `${prefix}-${i - 1}`;
    entries.push(make.user(id, parentId, text(id, i, count - 1)));
  }
  return entries;
}

/** Main chain m-0…m-299, then a fork f-0…f-39 under m-100 (the leaf moves to f-39). */
async function fill(store: SessionStore): Promise<string> {
  await store.init();
  const { id } = await store.createSession(OWNER);
  const main = chain("m", MAIN, null);
  for (let at = 0; at < main.length; at += 100)
    await store.appendEntries(OWNER, id, main.slice(at, at + 100));
  await store.appendEntries(OWNER, id, chain("f", FORK, `m-${FORK_AT}`));
  return id;
}

/** On the path to `leaf`: the fork's entries and m-0…m-100 (leaf in the fork), or the whole main chain. */
function expected(entryId: string, leaf: "fork" | "main"): "path" | "abandoned" {
  const [prefix, n] = entryId.split("-") as [string, string];
  if (leaf === "main") return prefix === "m" ? "path" : "abandoned";
  return prefix === "f" || Number(n) <= FORK_AT ? "path" : "abandoned";
}

const dir = mkdtempSync(join(tmpdir(), "sessiontree-branch-walk-"));
after(() => rmSync(dir, { recursive: true, force: true }));

for (const [name, create] of [
  ["memory", () => new MemoryStore()],
  ["sqlite", () => new SqliteStore({ path: join(dir, "walk.db") })],
] as Array<[string, () => SessionStore]>) {
  describe(`branch state of hits in a long forked session (${name})`, () => {
    const store = create();
    after(() => store.close());

    it("says what the tree says, near the leaf and far from it, before and after the leaf moves", async () => {
      const id = await fill(store);
      for (const leaf of ["fork", "main"] as const) {
        if (leaf === "main") await store.setLeaf(OWNER, id, `m-${MAIN - 1}`);
        for (const [query, count] of [
          ["tailword", 6],
          ["headword", 10],
          ["alpha", 200],
        ] as const) {
          const hits = await store.search(OWNER, query, { limit: 200 });
          assert.equal(hits.length, count, `${query}, leaf in ${leaf}`);
          const got = hits.map((hit) => `${hit.entryId}:${hit.branch}`);
          const want = hits.map((hit) => `${hit.entryId}:${expected(hit.entryId, leaf)}`);
          assert.deepEqual(got, want, `${query}, leaf in ${leaf}`);
        }
      }
    });
  });
}
