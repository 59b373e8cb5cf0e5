import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { SessionEntry, SessionHeader } from "../../../src/core/entry.js";
import { sessionDirFor, sessionFileName } from "../../../src/file/paths.js";
import { encodeSession } from "../../../src/format/jsonl/encode.js";
import { SessionManager } from "../../../src/session/session-manager.js";
import { messageMaker } from "../../support/messages.js";

export const PI_FIXTURES = resolve(dirname(fileURLToPath(import.meta.url)), "../../../../shared/fixtures/pi");

/** The ids of the generated branched session's notable entries, for assertions. */
export interface BranchedIds {
  sessionId: string;
  file: string;
  firstPrompt: string;
  /** Labelled "diagnosis". */
  diagnosis: string;
  /** The refactor attempt that was abandoned (with a summary). */
  refactorPrompt: string;
  refactorError: string;
  /** An abandoned alternative answer to the first prompt (no summary). */
  altAnswer: string;
  branchSummary: string;
  regressionPrompt: string;
  compaction: string;
  finalPrompt: string;
  /** The leaf; labelled "done". */
  leaf: string;
}

export interface ViewerRoots {
  base: string;
  root: string;
  piDir: string;
  branched: BranchedIds;
}

const CWD = "/home/dev/parser-project";

type Messages = ReturnType<typeof messageMaker>;

/**
 * The tests' messages, stamped from now on as the earlier Date.now() ones were: the listing orders
 * sessions by their last message, so ours stay newer than pi's fixtures, and show today's date.
 */
const messagesFromNow = (): Messages => messageMaker(Date.now());

/** One agent step: a reply that calls a tool, and the tool's result for that call (same id). */
function toolStep(
  messages: Messages,
  text: string,
  tool: { name: string; arguments: Record<string, unknown> },
  output: string,
  isError = false,
) {
  const id = `call_${tool.name}_${text.length}`;
  const call = messages.assistant(text, {
    content: [
      { type: "text", text },
      { type: "toolCall", id, ...tool },
    ],
    stopReason: "toolUse",
  });
  return { call, result: messages.toolResult(id, tool.name, output, isError) };
}

/**
 * A session with every shape the viewer must draw, written through the real SessionManager: an
 * abandoned answer, an abandoned attempt left with a branch summary, a compaction, two labels,
 * a name, and a leaf that was moved back after the last append (so the file ends in a leaf marker).
 */
export function writeBranchedSession(root: string): BranchedIds {
  const messages = messagesFromNow();
  const { user, assistant } = messages;
  const sm = SessionManager.create(CWD, sessionDirFor(root, CWD, "sessiontree"), { root });
  sm.appendModelChange("anthropic", "claude-sonnet-4-5");
  sm.appendThinkingLevelChange("medium");
  const firstPrompt = sm.appendMessage(user("The parser test fails on nested lists. Find out why."));
  const altAnswer = sm.appendMessage(assistant("ALT: maybe the tokenizer is at fault, let me guess."));
  sm.branch(firstPrompt);
  const read = toolStep(
    messages,
    "Reading the parser.",
    { name: "read", arguments: { path: "src/parser.ts" } },
    "export function parse(tokens) { /* 300 lines */ }",
  );
  sm.appendMessage(read.call);
  sm.appendMessage(read.result);
  const diagnosis = sm.appendMessage(assistant("DIAGNOSIS: the depth counter is never decremented on ']'."));
  sm.appendLabelChange(diagnosis, "diagnosis");
  const refactorPrompt = sm.appendMessage(user("Refactor the whole parser into a state machine."));
  const refactor = toolStep(
    messages,
    "Editing.",
    { name: "edit", arguments: { path: "src/parser.ts" } },
    "edit failed: old text not found",
    true,
  );
  sm.appendMessage(refactor.call);
  const refactorError = sm.appendMessage(refactor.result);
  sm.appendMessage(assistant("The refactor did not apply."));
  const branchSummary = sm.branchWithSummary(
    diagnosis,
    "SUMMARY: a state-machine refactor was tried and abandoned; the edit failed to apply.",
  );
  const regressionPrompt = sm.appendMessage(user("Fix only the depth counter and add a regression test."));
  const fix = toolStep(messages, "Fixing.", { name: "edit", arguments: { path: "src/parser.ts" } }, "ok");
  sm.appendMessage(fix.call);
  sm.appendMessage(fix.result);
  sm.appendMessage(assistant("Fixed, and a test for nested lists was added."));
  const compaction = sm.appendCompaction(
    "COMPACTED: the depth counter bug was found and fixed; a regression test exists.",
    regressionPrompt,
    48213,
  );
  const finalPrompt = sm.appendMessage(user("Run the whole suite."));
  const suite = toolStep(
    messages,
    "Running.",
    { name: "bash", arguments: { command: "npm test" } },
    "142 passing",
  );
  sm.appendMessage(suite.call);
  sm.appendMessage(suite.result);
  const leaf = sm.appendMessage(assistant("FINAL: all 142 tests pass."));
  sm.appendMessage(user("One more thing: also check the README."));
  sm.appendLabelChange(leaf, "done");
  sm.appendSessionInfo("Fix nested-list parsing");
  // Rewind to the answer after the session_info: the leaf survives in the file as a marker.
  sm.branch(leaf);
  const ids = {
    sessionId: sm.getSessionId(),
    file: sm.getSessionFile() as string,
    firstPrompt,
    diagnosis,
    refactorPrompt,
    refactorError,
    altAnswer,
    branchSummary,
    regressionPrompt,
    compaction,
    finalPrompt,
    leaf,
  };
  sm.close();
  return ids;
}

/**
 * A session of about `size` entries as agent turns (prompt, tool calls and results, answer) with an abandoned
 * 12-entry branch every 400 entries and a label every 1,000. Written straight as JSONL.
 */
export function bigSessionEntries(size: number): {
  header: SessionHeader;
  entries: SessionEntry[];
  leafId: string;
} {
  const messages = messagesFromNow();
  const { user, assistant } = messages;
  const start = Date.parse("2026-01-01T00:00:00.000Z");
  const entries: SessionEntry[] = [];
  let seq = 0;
  const add = (parentId: string | null, body: Record<string, unknown>): string => {
    const id = `e${(seq++).toString(16).padStart(7, "0")}`;
    entries.push({
      id,
      parentId,
      timestamp: new Date(start + seq * 1000).toISOString(),
      ...body,
    } as SessionEntry);
    return id;
  };
  const message = (parentId: string | null, m: unknown) => add(parentId, { type: "message", message: m });
  let leaf: string | null = null;
  let turn = 0;
  while (entries.length < size - 24) {
    turn++;
    const prompt = message(leaf, user(`Prompt ${turn}: do step ${turn}`));
    let last = prompt;
    // One to four tool calls per turn, as agents do.
    for (let call = 0; call <= turn % 4; call++) {
      const command = `step ${turn}.${call}`;
      const step = toolStep(
        messages,
        `Working on ${command}`,
        { name: "bash", arguments: { command } },
        `${command} output`,
      );
      last = message(last, step.call);
      last = message(last, step.result);
    }
    leaf = message(last, assistant(`Step ${turn} done`));
    if (turn % 100 === 0) {
      let branch = prompt;
      for (let k = 0; k < 12; k++) branch = message(branch, assistant(`Abandoned try ${turn}.${k}`));
    }
    if (turn % 250 === 0)
      leaf = add(leaf, { type: "label", targetId: leaf, label: `milestone-${turn / 250}` });
  }
  // pi takes the last line as the leaf: end on the main line.
  leaf = message(leaf, assistant("All steps done"));
  const header: SessionHeader = {
    type: "session",
    version: 3,
    id: "big-session-0001",
    timestamp: new Date(start).toISOString(),
    cwd: "/home/dev/big",
  };
  return { header, entries, leafId: leaf as string };
}

/** A temp directory holding our root (branched + big session) and a pi agent dir with both pi fixtures. */
export function makeViewerRoots(options: { bigSize?: number } = {}): ViewerRoots {
  const base = mkdtempSync(join(tmpdir(), "sessiontree-viewer-"));
  // Listing and opening keep caches (file/cache-dir.ts): here, inside base, removed with it; a
  // viewer started as a child process inherits the setting.
  process.env.SESSIONTREE_CACHE_DIR = join(base, "cache");
  const root = join(base, "sessiontree");
  const piDir = join(base, "pi-agent");
  const piSessions = join(piDir, "sessions", "--Users-badlogic-workspaces-pi-mono--");
  mkdirSync(piSessions, { recursive: true });
  for (const name of ["large-session.jsonl", "before-compaction.jsonl"]) {
    copyFileSync(join(PI_FIXTURES, name), join(piSessions, name));
  }
  const branched = writeBranchedSession(root);
  if (options.bigSize) {
    const big = bigSessionEntries(options.bigSize);
    const dir = sessionDirFor(root, big.header.cwd, "sessiontree");
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, sessionFileName(big.header.timestamp, big.header.id)),
      encodeSession(big.header, big.entries),
    );
  }
  return { base, root, piDir, branched };
}
