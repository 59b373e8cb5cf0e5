import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { SearchHit } from "../../src/core/search-hit.js";
import { searchWorkspace, writeSession } from "../session/search-support.js";
import { cliEnv, hasAnsi, runScenario } from "./helpers.js";

const HERE = "/work/project-a";
const THERE = "/work/project-b";

describe("sessiontree search", () => {
  // The child running the CLI inherits SESSIONTREE_CACHE_DIR: the index goes into this workspace.
  const ws = searchWorkspace();
  after(() => ws.cleanup());
  let herePath = "";
  before(() => {
    herePath = writeSession(ws.root, HERE, "aaaa1111-here", [
      { id: "h1", text: "make the flaky migration pass" },
      { id: "h2", role: "assistant", text: "the migration is fixed" },
      { id: "h3", parentId: "h1", text: "try the migration again, differently" },
      { id: "h4", entry: { type: "session_info", name: "migration work" } },
    ]);
    writeSession(ws.root, THERE, "bbbb2222-there", [{ id: "t1", text: "unrelated migration elsewhere" }]);
  });

  const env = (extra: Record<string, string> = {}) => cliEnv(ws.dir, { SESSIONTREE_ROOT: ws.root, ...extra });

  it("searches the current directory's sessions, or all with --all, as --json hits", () => {
    const [here, all, limited] = runScenario(ws.dir, [
      { args: ["search", "migration", "--json"], cwd: HERE, env: env() },
      { args: ["search", "--all", "--json", "migration"], cwd: HERE, env: env() },
      { args: ["search", "migration", "--json", "--limit", "1", "--cwd", THERE], cwd: HERE, env: env() },
    ]);
    assert.equal(here?.code, 0, here?.stderr);
    const hits = JSON.parse(here?.stdout ?? "") as SearchHit[];
    assert.deepEqual(hits.map((h) => h.entryId).sort(), ["h1", "h2", "h3"]);
    const byId = new Map(hits.map((h) => [h.entryId, h]));
    assert.equal(byId.get("h2")?.branch, "abandoned");
    assert.equal(byId.get("h3")?.branch, "path");
    assert.equal(byId.get("h2")?.kind, "assistant");
    assert.equal(byId.get("h1")?.sessionName, "migration work");
    assert.equal(byId.get("h1")?.path, herePath);
    assert.match(byId.get("h1")?.snippet ?? "", /«migration»/);
    const allIds = (JSON.parse(all?.stdout ?? "") as SearchHit[]).map((h) => h.entryId).sort();
    assert.deepEqual(allIds, ["h1", "h2", "h3", "t1"]);
    assert.deepEqual(
      (JSON.parse(limited?.stdout ?? "") as SearchHit[]).map((h) => h.entryId),
      ["t1"],
    );
  });

  it("prints a hit in two lines: facts, then the snippet with the matches bold (plain without colour)", () => {
    const [plain, coloured] = runScenario(ws.dir, [
      { args: ["search", "flaky"], cwd: HERE, env: env({ NO_COLOR: "1" }) },
      { args: ["search", "again"], cwd: HERE, env: env({ FORCE_COLOR: "1" }), tty: true },
    ]);
    assert.equal(plain?.code, 0, plain?.stderr);
    const lines = (plain?.stdout ?? "").trimEnd().split("\n");
    assert.equal(lines.length, 2);
    assert.match(lines[0] as string, /^2026-02-01 10:\d\d {2}migration work {2}h1 {2}user$/);
    assert.equal(lines[1], "    make the flaky migration pass");
    assert.ok(!hasAnsi(plain?.stdout ?? ""));
    assert.ok(hasAnsi(coloured?.stdout ?? ""));
    assert.ok(coloured?.stdout.includes("\u001b[1m"), "bold");
    assert.ok(!coloured?.stdout.includes("«"));
  });

  it("shows an abandoned entry distinctly, and says when nothing is found", () => {
    const [abandoned, none, empty] = runScenario(ws.dir, [
      { args: ["search", "fixed"], cwd: HERE, env: env({ NO_COLOR: "1" }) },
      { args: ["search", "nowhere-word"], cwd: HERE, env: env({ NO_COLOR: "1" }) },
      { args: ["search", "--", "--"], cwd: HERE, env: env() },
    ]);
    assert.match(abandoned?.stdout ?? "", /h2 {2}assistant {2}abandoned branch\n/);
    assert.equal(none?.code, 0);
    assert.match(
      none?.stdout ?? "",
      /^Nothing found for nowhere-word \(sessions of \/work\/project-a; try --all\)/,
    );
    assert.equal(empty?.code, 2, empty?.stderr);
  });

  it("takes --root, and finds nothing in a root without sessions", () => {
    const [other] = runScenario(ws.dir, [
      {
        args: ["--root", join(ws.dir, "empty-root"), "search", "--all", "--json", "migration"],
        cwd: HERE,
        env: env(),
      },
    ]);
    assert.equal(other?.code, 0, other?.stderr);
    assert.deepEqual(JSON.parse(other?.stdout ?? ""), []);
  });
});
