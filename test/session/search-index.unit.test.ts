import assert from "node:assert/strict";
import { readdirSync, rmSync, writeFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import type { SearchHit } from "../../src/core/search-hit.js";
import { dropSearchIndex, searchLocal, searchLocalDetailed } from "../../src/session/search/index.js";
import { SessionManager } from "../../src/session/session-manager.js";
import { appendRaw, entryLine, searchWorkspace, writeSession } from "./search-support.js";

const CWD = "/home/dev/app";
const ws = searchWorkspace();
after(() => ws.cleanup());

const ids = (hits: SearchHit[]) => hits.map((h) => h.entryId);
const find = (query: string, extra: { cwd?: string; limit?: number } = {}) =>
  searchLocal({ root: ws.root, query, ...extra });

describe("local search: finding and ranking", () => {
  before(() => {
    writeSession(ws.root, CWD, "sess-rank", [
      { id: "r1", text: "the deploy script failed twice", minute: 1 },
      { id: "r2", text: "deploy deploy deploy: retry the deploy", minute: 2 },
      { id: "r3", text: "nothing to see", minute: 3 },
      { id: "r4", role: "assistant", text: "I will call parseArgs in src/app.ts and read_file", minute: 4 },
      { id: "r5", text: "the deploy script failed twice", minute: 5 },
    ]);
  });

  it("ranks by relevance, then newest first among equals", () => {
    const hits = find("deploy");
    // r2 says it most; r1 and r5 are the same text, the newer first.
    assert.deepEqual(ids(hits), ["r2", "r5", "r1"]);
    assert.ok((hits[0] as SearchHit).score > (hits[1] as SearchHit).score);
    assert.equal((hits[1] as SearchHit).score, (hits[2] as SearchHit).score);
    const hit = hits[0] as SearchHit;
    assert.equal(hit.sessionId, "sess-rank");
    assert.equal(hit.kind, "user");
    assert.equal(hit.branch, "path");
    assert.equal(hit.cwd, CWD);
    assert.match(hit.snippet, /«deploy» «deploy»/);
    assert.match(hit.timestamp, /^2026-02-01T10:02/);
  });

  it("finds code identifiers whole, in parts and as phrases, any case", () => {
    for (const query of [
      "parseArgs",
      "PARSEARGS",
      "args",
      "src/app.ts",
      "app.ts",
      "read_file",
      '"read file"',
    ]) {
      assert.deepEqual(ids(find(query)), ["r4"], query);
    }
    assert.match((find("args")[0] as SearchHit).snippet, /«parseArgs»/);
    assert.equal((find("args")[0] as SearchHit).kind, "assistant");
    assert.deepEqual(ids(find("script twice")), ["r5", "r1"]);
    assert.deepEqual(ids(find('"twice script"')), []);
    assert.deepEqual(ids(find("pars*")), ["r4"]);
  });

  it("applies the limit and the cwd scope", () => {
    assert.equal(find("deploy", { limit: 1 }).length, 1);
    assert.equal(find("deploy", { cwd: CWD }).length, 3);
    assert.equal(find("deploy", { cwd: "/elsewhere" }).length, 0);
  });
});

describe("local search: branch state", () => {
  it("follows the leaf when it moves, without the entry changing", () => {
    const path = writeSession(ws.root, "/home/dev/branchy", "sess-branch", [
      { id: "b1", text: "start here" },
      { id: "b2", text: "first attempt with quicksort" },
      { id: "b3", parentId: "b1", text: "second attempt with mergesort" },
    ]);
    const state = () =>
      Object.fromEntries(find("attempt", { cwd: "/home/dev/branchy" }).map((h) => [h.entryId, h.branch]));
    assert.deepEqual(state(), { b2: "abandoned", b3: "path" });
    // The leaf moves back to b2: a leaf marker is appended, b2 and b3 are not touched.
    const manager = SessionManager.open(path);
    manager.branch("b2");
    manager.close();
    assert.deepEqual(state(), { b2: "path", b3: "abandoned" });
    const { refreshed } = searchLocalDetailed({ root: ws.root, query: "attempt", cwd: "/home/dev/branchy" });
    assert.equal(refreshed.unchanged >= 1, true);
  });
});

describe("local search: incremental index", () => {
  it("reads on from where it stopped when a file grows, keeping a torn tail out until it is whole", () => {
    const path = writeSession(ws.root, "/home/dev/grow", "sess-grow", [{ id: "g1", text: "alpha words" }], {
      trailing: entryLine({ id: "g2", parentId: "g1", text: "bravo unfinished" }).slice(0, 40),
    });
    const opts = { root: ws.root, cwd: "/home/dev/grow" };
    let result = searchLocalDetailed({ ...opts, query: "alpha" });
    assert.deepEqual(ids(result.hits), ["g1"]);
    assert.equal(result.refreshed.read, 1);
    assert.deepEqual(ids(find("bravo", { cwd: "/home/dev/grow" })), []);
    // The writer finishes its line, then appends two records glued on one line.
    const full = entryLine({ id: "g2", parentId: "g1", text: "bravo unfinished" });
    appendRaw(path, `${full.slice(40)}\n`);
    appendRaw(
      path,
      `${entryLine({ id: "g3", parentId: "g2", text: "charlie glued" })}${entryLine({ id: "g4", parentId: "g3", text: "delta glued" })}\n`,
    );
    result = searchLocalDetailed({ ...opts, query: "glued" });
    assert.equal(result.refreshed.extended, 1);
    assert.deepEqual(ids(result.hits).sort(), ["g3", "g4"]);
    for (const hit of result.hits) assert.equal(hit.branch, "path");
    assert.match(result.hits.find((h) => h.entryId === "g3")?.snippet ?? "", /charlie «glued»/);
    assert.deepEqual(ids(find("bravo", { cwd: "/home/dev/grow" })), ["g2"]);
    assert.deepEqual(ids(find("alpha", { cwd: "/home/dev/grow" })), ["g1"]);
  });

  it("reads a replaced file again, and drops a deleted one", () => {
    const path = writeSession(ws.root, "/home/dev/swap", "sess-swap", [{ id: "s1", text: "original zebra" }]);
    const opts = { root: ws.root, cwd: "/home/dev/swap" };
    assert.deepEqual(ids(searchLocal({ ...opts, query: "zebra" })), ["s1"]);
    // Rewritten in place with other content (same size or not): the stamp says replaced.
    writeSession(ws.root, "/home/dev/swap", "sess-swap", [{ id: "s9", text: "rewritten giraffe" }]);
    const result = searchLocalDetailed({ ...opts, query: "giraffe" });
    assert.equal(result.refreshed.read, 1);
    assert.deepEqual(ids(result.hits), ["s9"]);
    assert.deepEqual(ids(searchLocal({ ...opts, query: "zebra" })), []);
    rmSync(path);
    const gone = searchLocalDetailed({ ...opts, query: "giraffe" });
    assert.deepEqual(gone.hits, []);
    assert.equal(gone.refreshed.gone, 1);
  });

  it("says which files are not sessions instead of dropping them silently", () => {
    const path = writeSession(ws.root, "/home/dev/junk", "sess-junk", []);
    writeFileSync(path, "not json at all\n");
    const result = searchLocalDetailed({ root: ws.root, query: "json", cwd: "/home/dev/junk" });
    assert.deepEqual(result.hits, []);
    assert.deepEqual(result.skipped, [path]);
  });
});

describe("local search: the index is only a cache", () => {
  // Scores may differ a little: the index's BM25 statistics keep the lengths of rows deleted before
  // (files replaced or gone); a fresh index has none. Hits, order and snippets are the same.
  const found = (q: string) => find(q).map(({ score: _, ...hit }) => hit);

  it("answers the same after the index is deleted, or damaged", () => {
    const queries = ["deploy", "attempt", "glued", "parseArgs"];
    const first = queries.map(found);
    dropSearchIndex(ws.root);
    const rebuilt = queries.map((q) => find(q));
    assert.deepEqual(queries.map(found), first);
    assert.deepEqual(
      queries.map((q) => find(q)),
      rebuilt,
      "a rebuilt index ranks alike every time",
    );
    for (const name of readdirSync(`${ws.cache}/search`))
      if (name.endsWith(".sqlite"))
        writeFileSync(`${ws.cache}/search/${name}`, "garbage, not a database".repeat(100));
    assert.deepEqual(queries.map(found), first);
  });

  it("writes nothing beside the sessions", () => {
    const names = readdirSync(`${ws.root}/sessions`, { recursive: true }).map(String);
    assert.ok(
      names.every((name) => !name.includes(".sqlite") && !name.includes("search")),
      names.join(","),
    );
  });
});
