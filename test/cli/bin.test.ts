import assert from "node:assert/strict";
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { encodeCwd } from "../../src/file/paths.js";
import { cliEnv, FIXTURES, hasAnsi, runBin, tempWorkspace } from "./helpers.js";

// The real launcher as a user runs it: `node bin/sessiontree.js ...` (from source, via tsx).
describe("the sessiontree launcher", () => {
  const ws = tempWorkspace();
  let env: Record<string, string>;

  before(() => {
    env = cliEnv(ws.dir);
    const folder = join(ws.root, "sessions", encodeCwd(ws.dir));
    mkdirSync(folder, { recursive: true });
    copyFileSync(
      join(FIXTURES, "large-session.jsonl"),
      join(folder, "2025-11-20T23-33-50-805Z_d703a1a9-1b7b-4fb1-b512-c9738b1fe617.jsonl"),
    );
    // pi's own layout under $HOME/.pi/agent, where `--pi` looks by default.
    const pi = join(ws.dir, ".pi", "agent", "sessions", "--Users-badlogic-workspaces-pi-mono--");
    mkdirSync(pi, { recursive: true });
    copyFileSync(
      join(FIXTURES, "before-compaction.jsonl"),
      join(pi, "2025-12-09T00-53-29-825Z_ffae836b-9420-4060-ac13-7745215f90ff.jsonl"),
    );
  });
  after(() => ws.cleanup());

  it("--pi alone reads pi's agent directory under $HOME", () => {
    const listed = runBin(["ls", "--all", "--pi", "--json"], { cwd: ws.dir, env });
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(
      JSON.parse(listed.stdout).map((row: { id: string }) => row.id),
      ["ffae836b-9420-4060-ac13-7745215f90ff"],
    );
  });

  it("runs a command from source and exits 0; colours only when forced, never with NO_COLOR", () => {
    const plain = runBin(["ls", "--all"], { cwd: ws.dir, env });
    assert.equal(plain.code, 0, plain.stderr);
    assert.match(plain.stdout, /d703a1a9 .* 914 msgs/);
    assert.equal(hasAnsi(plain.stdout), false);
    const forced = runBin(["tree", "d703"], { cwd: ws.dir, env: { ...env, FORCE_COLOR: "1" } });
    assert.equal(hasAnsi(forced.stdout), true);
    assert.match(forced.stdout, /← leaf/);
  });

  it("exit codes: --help and --version 0, unknown command or option 2, missing session 1", () => {
    assert.equal(runBin(["--version"], { cwd: ws.dir, env }).stdout.trim(), "0.1.0");
    const help = runBin(["--help"], { cwd: ws.dir, env });
    assert.equal(help.code, 0);
    for (const name of [
      "ls",
      "tree",
      "show|context",
      "checkout",
      "label",
      "name",
      "fork|extract",
      "export",
      "import",
      "fsck",
      "repair",
      "migrate",
      "view",
      "chat",
      "serve",
      "keys",
    ]) {
      assert.match(help.stdout, new RegExp(`\\n  ${name.replace("|", "\\|")} `), name);
    }
    const unknown = runBin(["frobnicate"], { cwd: ws.dir, env });
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown command/);
    const bogus = runBin(["ls", "--bogus", "--json"], { cwd: ws.dir, env });
    assert.equal(bogus.code, 2);
    assert.equal(JSON.parse(bogus.stdout).error.code, "usage");
    const missing = runBin(["show", "nothing-like-this", "--json"], { cwd: ws.dir, env });
    assert.equal(missing.code, 1);
    assert.equal(JSON.parse(missing.stdout).error.code, "session_not_found");
  });
});
