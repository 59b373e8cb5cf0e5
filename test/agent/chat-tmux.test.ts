import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { projectContext } from "../../src/core/context.js";
import type { SessionEntry } from "../../src/core/entry.js";
import { messageText } from "../../src/core/messages.js";
import { SessionManager } from "../../src/session/session-manager.js";

const TMUX = "/usr/bin/tmux";
const SOCKET = `sessiontree-chat-test-${process.pid}`;
const ENTRY = fileURLToPath(new URL("./fixtures/chat-entry.ts", import.meta.url));
const LOADER = fileURLToPath(import.meta.resolve("tsx"));
const base = mkdtempSync(join(tmpdir(), "sessiontree-chat-"));
const root = join(base, "root");
const cwd = join(base, "project");
execFileSync("mkdir", ["-p", cwd]);
writeFileSync(join(cwd, "notes.txt"), "a note\n");

const tmux = (...args: string[]) => execFileSync(TMUX, ["-L", SOCKET, ...args], { encoding: "utf8" });
after(() => {
  try {
    tmux("kill-server");
  } catch {
    // The server is gone already when every chat quit.
  }
  rmSync(base, { recursive: true, force: true });
});

function startChat(name: string, args: string[]): void {
  const command = `cd ${cwd} && SESSIONTREE_ROOT=${root} NO_COLOR=1 ${process.execPath} --import ${LOADER} ${ENTRY} chat ${args.join(" ")}`;
  tmux("new-session", "-d", "-s", name, "-x", "160", "-y", "60", command);
  tmux("set-option", "-t", name, "remain-on-exit", "on");
}

const screen = (name: string) => tmux("capture-pane", "-p", "-t", name, "-S", "-200");

async function waitFor(name: string, pattern: RegExp): Promise<string> {
  // Generous: the whole suite shares two cores with other engineers' runs.
  const deadline = Date.now() + 60000;
  for (;;) {
    const text = screen(name);
    if (pattern.test(text)) return text;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern} in:\n${text}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function type(name: string, line: string, expect: RegExp): Promise<string> {
  tmux("send-keys", "-t", name, "-l", line);
  tmux("send-keys", "-t", name, "Enter");
  return waitFor(name, expect);
}

function idOf(tree: string, pattern: RegExp): string {
  const line = tree.split("\n").find((l) => pattern.test(l));
  const id = line?.match(/^[* ] +([0-9a-f]{8}) /)?.[1];
  assert.ok(id, `no tree line matching ${pattern}:\n${tree}`);
  return id;
}

test("sessiontree chat in tmux: converse, rewind, branch, label, quit, resume", async () => {
  startChat("one", ["--provider", "scripted"]);
  const banner = await waitFor("one", /\/help for commands/);
  assert.match(banner, /scripted model: offline, replies are scripted/);
  const sessionId = banner.match(/session ([0-9a-f-]{36})/)?.[1] as string;
  await type("one", "hello one", /You said: hello one/);
  await type("one", "call ls {}", /Tool results: ls: notes\.txt/);
  const tree = await type("one", "/tree", /\* +[0-9a-f]{8} assistant: \(scripted\) Tool results/);
  const firstReply = idOf(tree, /assistant: \(scripted\) You said: hello one/);
  await type("one", `/rewind ${firstReply}`, new RegExp(`leaf → ${firstReply}`));
  await type("one", "another way", /You said: another way/);
  await type("one", `/label ${firstReply} fork-point`, /label on .*: fork-point/);
  await type("one", `/branch ${firstReply.slice(0, 6)}`, /left branch summarized as/);
  const tree2 = await type("one", "/tree", /branch_summary: \(scripted summary\)/);
  assert.match(tree2, new RegExp(`${firstReply} \\[fork-point\\]`));
  await type("one", "/quit", /bye — resume with: sessiontree chat --resume/);

  const file = SessionManager.list(cwd, undefined, undefined, { root }).then(
    (s) => s.find((i) => i.id === sessionId)?.path,
  );
  const path = (await file) as string;
  let manager = SessionManager.open(path);
  const children = manager.getChildren(firstReply).map((e) => describe(e));
  assert.deepEqual(children, ["user: call ls {}", "user: another way", "branch_summary"]);
  assert.deepEqual(
    projectContext(manager.getBranch()).messages.map((m) => m.role),
    ["user", "assistant", "branchSummary"],
  );
  manager.close();

  startChat("two", ["--resume", sessionId.slice(0, 13)]);
  await waitFor("two", new RegExp(`session ${sessionId}`));
  await type("two", "after resume", /You said: after resume/);
  await type("two", "/quit", /bye/);
  manager = SessionManager.open(path);
  const context = projectContext(manager.getBranch());
  assert.deepEqual(
    context.messages.map((m) =>
      m.role === "branchSummary" ? "branchSummary" : `${m.role}: ${messageText(m as { content: unknown })}`,
    ),
    [
      "user: hello one",
      "assistant: (scripted) You said: hello one",
      "branchSummary",
      "user: after resume",
      "assistant: (scripted) You said: after resume",
    ],
  );
  manager.close();

  startChat("three", ["--continue"]);
  await waitFor("three", new RegExp(`session ${sessionId}`));
  await type("three", "/thinking high", /thinking high/);
  await type("three", "/model scripted/scripted-2", /model scripted\/scripted-2/);
  await type("three", "think about it", /You said: think about it/);
  // A short session has nothing older than the kept window (20k tokens): nothing to summarize.
  await type("three", "/compact", /nothing to compact/);
  const forked = await type(
    "three",
    "/fork",
    /session (?![^\n]*${sessionId})[0-9a-f-]{36}[^\n]*\n[^\n]*scripted-2/,
  );
  const forkId = forked.match(new RegExp(`session (?!${sessionId})([0-9a-f-]{36})`))?.[1];
  assert.ok(forkId);
  await type("three", "/quit", new RegExp(`resume with: sessiontree chat --resume ${forkId}`));
  manager = SessionManager.open(path);
  const path3 = manager.getBranch();
  assert.ok(path3.some((e) => e.type === "thinking_level_change" && e.thinkingLevel === "high"));
  assert.ok(path3.some((e) => e.type === "model_change" && e.modelId === "scripted-2"));
  const thinkingReply = path3.find(
    (e) => e.type === "message" && e.message.role === "assistant" && e.message.model === "scripted-2",
  );
  assert.equal(
    (thinkingReply as { message: { content: Array<{ type: string }> } }).message.content[0]?.type,
    "thinking",
  );
  manager.close();
});

function describe(entry: SessionEntry): string {
  return entry.type === "message"
    ? `${entry.message.role}: ${messageText(entry.message as { content: unknown })}`
    : entry.type;
}
