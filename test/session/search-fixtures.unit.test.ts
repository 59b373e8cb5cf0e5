import assert from "node:assert/strict";
import { copyFileSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { SessionEntry } from "../../src/core/entry.js";
import { searchableText, searchKind } from "../../src/core/search-text.js";
import { encodeCwdPi, sessionsDir } from "../../src/file/paths.js";
import { readForOpen } from "../../src/file/session-read.js";
import { searchLocal } from "../../src/session/search/index.js";
import { searchWorkspace } from "./search-support.js";

// Exactness on pi's real sessions (v1 files: entry ids come from the in-memory migration): every
// entry whose text holds the word is found, no other, each with its branch state as the tree says.
const FIXTURES =
  process.env.SESSIONTREE_PI_FIXTURES ??
  resolve(fileURLToPath(new URL(".", import.meta.url)), "../../../shared/fixtures/pi");
const NAMES = ["before-compaction.jsonl", "large-session.jsonl"];
const CWD = "/Users/badlogic/workspaces/pi-mono";

describe("local search over the pi fixtures", () => {
  const ws = searchWorkspace();
  const sessions: Array<{ path: string; entries: SessionEntry[]; onPath: Set<string> }> = [];
  after(() => ws.cleanup());
  before(() => {
    // pi's layout: its folder naming, as `--pi` reads it.
    const dir = join(sessionsDir(ws.root), encodeCwdPi(CWD));
    mkdirSync(dir, { recursive: true });
    for (const name of NAMES) {
      const path = join(dir, `2025-12-09T00-00-00-000Z_${name}`);
      copyFileSync(join(FIXTURES, name), path);
      const { tree } = readForOpen(path);
      sessions.push({ path, entries: tree.getEntries(), onPath: new Set(tree.getBranch().map((e) => e.id)) });
    }
  });

  /** The entries whose searchable text `matches`, as the files say. */
  function expected(matches: (text: string) => boolean): Map<string, string> {
    const found = new Map<string, string>();
    for (const { entries, onPath } of sessions)
      for (const entry of entries)
        if (searchKind(entry) !== null && matches(searchableText(entry)))
          found.set(entry.id, onPath.has(entry.id) ? "path" : "abandoned");
    return found;
  }

  const cases: Array<[string, (text: string) => boolean]> = [
    ["misnomer", (text) => /\bmisnomer\b/i.test(text)],
    ["untangling", (text) => /\buntangling\b/i.test(text)],
    ["tui-renderer.ts", (text) => /\btui[^\p{L}\p{N}]+renderer[^\p{L}\p{N}]+ts\b/iu.test(text)],
  ];
  for (const [query, matches] of cases) {
    it(`finds exactly the entries that hold ${query}`, () => {
      const want = expected(matches);
      assert.ok(want.size > 0, `the fixtures hold ${query}`);
      const hits = searchLocal({ root: ws.root, query, cwd: CWD, limit: 10_000 });
      assert.deepEqual(new Map(hits.map((h) => [h.entryId, h.branch])), want);
      for (const hit of hits) assert.ok(hit.snippet.includes("«"), hit.snippet);
    });
  }

  it("names the session and entry of the one user message that says misnomer", () => {
    const [hit] = searchLocal({ root: ws.root, query: "MISNOMER", cwd: CWD });
    assert.ok(hit);
    assert.equal(hit.sessionId, "ffae836b-9420-4060-ac13-7745215f90ff");
    assert.equal(hit.kind, "user");
    assert.match(hit.snippet, /which is a «misnomer» imo/);
    const entry = sessions[0]?.entries.find((e) => e.id === hit.entryId);
    assert.equal(entry?.timestamp, hit.timestamp);
  });
});
