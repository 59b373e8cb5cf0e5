import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { encodeCwd } from "../../src/file/paths.js";
import { BIN, cliEnv, FIXTURES, tempWorkspace } from "./helpers.js";

const ID = "d703a1a9-1b7b-4fb1-b512-c9738b1fe617";

/** Runs the launcher with the read end of its stdout and/or stderr closed at once; its exit code. */
function runWithClosed(
  args: string[],
  closed: { stdout: boolean; stderr: boolean },
  options: { cwd: string; env: Record<string, string> },
): Promise<{ code: number | null; signal: string | null }> {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: options.cwd,
    env: { ...options.env, SESSIONTREE_FROM_SOURCE: "1" },
    stdio: ["ignore", closed.stdout ? "pipe" : "ignore", closed.stderr ? "pipe" : "ignore"],
  });
  // Nobody will read: the command's first write meets a closed pipe (EPIPE).
  child.stdout?.destroy();
  child.stderr?.destroy();
  return new Promise((resolve) => child.on("close", (code, signal) => resolve({ code, signal })));
}

// Issue 13 item 9: `sessiontree tree x 2>&1 | head -2` exits 0 quietly, as `git log | head` does.
describe("a closed output pipe ends the command quietly", () => {
  const ws = tempWorkspace();
  let env: Record<string, string>;

  before(() => {
    env = cliEnv(ws.dir);
    const folder = join(ws.root, "sessions", encodeCwd(ws.dir));
    mkdirSync(folder, { recursive: true });
    // A v1 file: `tree` writes a note about it on stderr after the tree on stdout.
    copyFileSync(join(FIXTURES, "large-session.jsonl"), join(folder, `2025-11-20T23-33-50-805Z_${ID}.jsonl`));
  });
  after(() => ws.cleanup());

  it("stderr closed (stdout elsewhere): exit 0, not a crash on EPIPE", async () => {
    const result = await runWithClosed(["tree", ID], { stdout: false, stderr: true }, { cwd: ws.dir, env });
    assert.deepEqual(result, { code: 0, signal: null });
  });

  it("stdout and stderr closed: exit 0", async () => {
    const result = await runWithClosed(
      ["tree", ID, "--full"],
      { stdout: true, stderr: true },
      { cwd: ws.dir, env },
    );
    assert.deepEqual(result, { code: 0, signal: null });
  });

  it("`tree x 2>&1 | head -2` in a shell: two lines, status 0, nothing else", () => {
    const script = `"${process.execPath}" "${BIN}" tree ${ID} --full 2>&1 | head -2; exit \${PIPESTATUS[0]}`;
    const shell = spawnSync("bash", ["-c", script], {
      cwd: ws.dir,
      env: { ...env, SESSIONTREE_FROM_SOURCE: "1" },
      encoding: "utf8",
    });
    assert.equal(shell.status, 0, shell.stderr);
    assert.equal(shell.stdout.trimEnd().split("\n").length, 2);
    assert.equal(shell.stderr, "");
  });
});
