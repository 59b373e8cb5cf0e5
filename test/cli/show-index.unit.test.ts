import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { indexPathFor } from "../../src/file/sidecar-index.js";
import { SessionManager } from "../../src/session/session-manager.js";
import { runCountingWholeReads } from "./whole-reads.js";

const CWD = "/home/dev/project";

/** Runs the CLI in-process, counting the whole reads of a session file it makes; it must succeed. */
async function run(args: string[], root: string): Promise<{ code: number; out: string; wholeReads: number }> {
  const { code, out, err, wholeReads } = await runCountingWholeReads(
    args,
    { HOME: root, SESSIONTREE_ROOT: root },
    CWD,
  );
  assert.equal(code, 0, err);
  return { code, out, wholeReads };
}

/**
 * A session over 1 MiB with a compaction and an abandoned branch: the manager opens it through its
 * sidecar index and reads only the lines of the leaf's context.
 */
function writeCompactedSession(root: string): { path: string; leafId: string } {
  const manager = SessionManager.create(CWD, undefined, { root });
  const filler = "tool output line with some words in it\n".repeat(100);
  let kept = "";
  let fork = "";
  for (let turn = 0; turn < 300; turn++) {
    const user = manager.appendMessage({ role: "user", content: `question ${turn}`, timestamp: turn });
    if (turn === 200) kept = user;
    if (turn === 120) fork = user;
    manager.appendMessage({
      role: "toolResult",
      toolCallId: `call-${turn}`,
      toolName: "read",
      content: [{ type: "text", text: `${filler}end of result ${turn}` }],
      isError: false,
      timestamp: turn,
    });
    if (turn === 250) manager.appendCompaction("what happened before turn 200", kept, 50_000);
  }
  const leafId = manager.getLeafId() as string;
  manager.branch(fork);
  manager.appendMessage({ role: "user", content: "an abandoned question", timestamp: 1 });
  manager.branch(leafId);
  const path = manager.getSessionFile() as string;
  manager.close();
  return { path, leafId };
}

describe("show: the leaf's context through the sidecar index is the whole read's", () => {
  let dir = "";
  let previousCache: string | undefined;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "sessiontree-show-index-"));
    previousCache = process.env.SESSIONTREE_CACHE_DIR;
    process.env.SESSIONTREE_CACHE_DIR = join(dir, "cache");
  });
  after(() => {
    if (previousCache === undefined) delete process.env.SESSIONTREE_CACHE_DIR;
    else process.env.SESSIONTREE_CACHE_DIR = previousCache;
    rmSync(dir, { recursive: true, force: true });
  });

  it("prints the same transcript and JSON with no --at (index) as with --at the leaf (whole read)", async () => {
    const root = join(dir, "root");
    const { path, leafId } = writeCompactedSession(root);
    assert.ok(statSync(path).size > 1 << 20, "large enough to be opened through its index");

    const indexed = await run(["show", path], root);
    assert.ok(existsSync(indexPathFor(path)), "the open made the sidecar index");
    assert.equal(indexed.wholeReads, 0, "the leaf's context is read through the index only");
    const whole = await run(["show", path, "--at", leafId], root);
    assert.ok(whole.wholeReads >= 1, "--at looks the entry up in the whole tree");
    assert.equal(indexed.out, whole.out);
    assert.match(indexed.out, /compaction summary/);
    assert.match(indexed.out, new RegExp(`at ${leafId}`));

    const indexedJson = await run(["show", path, "--json"], root);
    const wholeJson = await run(["show", path, "--json", "--at", leafId], root);
    assert.equal(indexedJson.wholeReads, 0);
    assert.equal(indexedJson.out, wholeJson.out);
  });
});
