import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import type { SessionEntry } from "../../src/core/entry.js";
import type { ToolResultMessage } from "../../src/core/messages.js";
import { SessionManager } from "../../src/session/session-manager.js";
import { type FakeOpenAi, startFakeOpenAi } from "./fixtures/fake-openai.js";

/**
 * A day's use of `sessiontree chat` in a real terminal (tmux), against the loopback fake OpenAI
 * server that refuses what the real API refuses: a coding task under `ask` rules (allow once,
 * deny, a rule from the project's settings), a 429 then a reply, a multi-line paste, an automatic
 * compaction, Ctrl-C during a running tool with keys typed ahead, Ctrl-C twice to quit, then
 * `--continue` showing where the chat stood, and a rule revoked since then refused.
 */

const TMUX = "/usr/bin/tmux";
const SOCKET = `sessiontree-chat-daily-${process.pid}`;
const ENTRY = fileURLToPath(new URL("./fixtures/chat-entry.ts", import.meta.url));
const LOADER = fileURLToPath(import.meta.resolve("tsx"));
const base = mkdtempSync(join(tmpdir(), "sessiontree-chat-daily-"));
const root = join(base, "root");
const cwd = join(base, "project");
const settingsFile = join(cwd, ".sessiontree", "settings.json");
/** tokens; the chat compacts above window − a quarter of it (6,000 tokens, ~24,000 characters). */
const WINDOW = 8000;
let fake: FakeOpenAi;

const tmux = (...args: string[]) => execFileSync(TMUX, ["-L", SOCKET, ...args], { encoding: "utf8" });

before(async () => {
  fake = await startFakeOpenAi();
  mkdirSync(join(cwd, ".sessiontree"), { recursive: true });
});
after(async () => {
  try {
    tmux("kill-server");
  } catch {
    // Gone already: every chat quit.
  }
  await fake.close();
  rmSync(base, { recursive: true, force: true });
});

function startChat(name: string, args: string[]): void {
  const flags = ["--provider", "openai", "--base-url", fake.url, "--context-window", String(WINDOW), ...args];
  const command = `cd ${cwd} && SESSIONTREE_ROOT=${root} NO_COLOR=1 ${process.execPath} --import ${LOADER} ${ENTRY} chat ${flags.join(" ")}`;
  tmux("new-session", "-d", "-s", name, "-x", "150", "-y", "50", command);
  tmux("set-option", "-t", name, "remain-on-exit", "on");
}

const screen = (name: string) => tmux("capture-pane", "-p", "-J", "-t", name, "-S", "-2000");

async function waitFor(name: string, pattern: RegExp): Promise<string> {
  // Generous: the machine is shared with other runs.
  const deadline = Date.now() + 60_000;
  for (;;) {
    const text = screen(name);
    if (pattern.test(text)) return text;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern} in:\n${text.slice(-4000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function type(name: string, line: string, expect: RegExp): Promise<string> {
  tmux("send-keys", "-t", name, "-l", line);
  tmux("send-keys", "-t", name, "Enter");
  return waitFor(name, expect);
}

/** Pastes as a terminal does when the program asked for bracketed paste (tmux paste-buffer -p). */
function paste(name: string, text: string): void {
  const file = join(base, "clip.txt");
  writeFileSync(file, text);
  tmux("load-buffer", "-b", "clip", file);
  tmux("paste-buffer", "-p", "-d", "-b", "clip", "-t", name);
}

/** The text of the last user message of a request body the fake received. */
function lastUserText(body: string): string {
  const messages = (JSON.parse(body) as { messages: Array<{ role: string; content: unknown }> }).messages;
  const user = messages.filter((m) => m.role === "user").at(-1);
  const content = user?.content;
  if (typeof content === "string") return content;
  return (content as Array<{ text?: string }>).map((b) => b.text ?? "").join("");
}

function sessionEntries(id: string): SessionEntry[] {
  const folder = readSessionPath(id);
  const manager = SessionManager.open(folder);
  try {
    return manager.getEntries();
  } finally {
    manager.close();
  }
}

function readSessionPath(id: string): string {
  const found = spawnSync("find", [root, "-name", `*${id}.jsonl`], { encoding: "utf8" }).stdout.trim();
  assert.ok(found, `no file for session ${id}`);
  return found.split("\n")[0] as string;
}

const toolResults = (entries: SessionEntry[]) =>
  entries.flatMap((e) =>
    e.type === "message" && e.message.role === "toolResult" ? [e.message as ToolResultMessage] : [],
  );

test("a day with sessiontree chat in a terminal", async () => {
  // The project's rules: echo commands run without asking, rm never; write, edit and other
  // commands ask (the chat's default for tools that change things).
  writeFileSync(
    settingsFile,
    JSON.stringify({ permissions: { allow: ["bash(echo *)"], deny: ["bash(rm *)"] } }),
  );
  startChat("day", ["--model", "gpt-test"]);
  const banner = await waitFor("day", /tools — allow: read ls grep find · ask: write edit bash/);
  const sessionId = banner.match(/session ([0-9a-f-]{36})/)?.[1] as string;

  // A coding task under ask: write allowed once, edit refused, echo allowed by the project, rm denied.
  await type("day", 'call write {"path":"hello.txt","content":"hello world\\n"}', /allow write\? \[y\] once/);
  tmux("send-keys", "-t", "day", "y");
  await waitFor("day", /Tool said: Wrote 12 bytes to hello\.txt/);
  assert.equal(readFileSync(join(cwd, "hello.txt"), "utf8"), "hello world\n");
  await type("day", 'call edit {"path":"hello.txt","oldText":"world","newText":"there"}', /allow edit\?/);
  const diff = screen("day");
  assert.match(diff, /- world\n\s+\+ there/, "the ask shows what the edit would change");
  tmux("send-keys", "-t", "day", "n");
  await waitFor(
    "day",
    /\[refused\] Permission denied: edit needs approval \(asked by the default decision\); the user said no/,
  );
  assert.equal(
    readFileSync(join(cwd, "hello.txt"), "utf8"),
    "hello world\n",
    "a refused edit changes nothing",
  );
  await type("day", 'call bash {"command":"echo from-bash"}', /Tool said: from-bash/);
  await type(
    "day",
    'call bash {"command":"rm hello.txt"}',
    /\[refused\] Permission denied: bash is refused by rule "deny bash\(rm \*\)" from \S+settings\.json/,
  );
  assert.equal(readFileSync(join(cwd, "hello.txt"), "utf8"), "hello world\n");

  // A 429 with retry-after: a countdown, then the reply; the retried request is the same bytes.
  fake.faults.push({ kind: "status", status: 429, headers: { "retry-after": "1" } });
  const requestsBefore = fake.bodies.length;
  await type("day", "after a rate limit", /\[retry 1\/3 in 1s\] HTTP 429[\s\S]*You said: after a rate limit/);
  assert.equal(fake.bodies.length, requestsBefore + 2);
  assert.equal(fake.bodies.at(-1), fake.bodies.at(-2));

  // A multi-line paste is one prompt, sent when Enter is pressed, not line by line.
  paste("day", "line one\nline two\nline three");
  await waitFor("day", /> line one↵line two↵line three/);
  assert.equal(fake.bodies.length, requestsBefore + 2, "nothing is sent before Enter");
  tmux("send-keys", "-t", "day", "Enter");
  await waitFor("day", /You said: line one\nline two\nline three/);
  assert.equal(lastUserText(fake.bodies.at(-1) as string), "line one\nline two\nline three");

  // Automatic compaction: a long paste takes the context over the line; the next prompt compacts
  // first (announced), keeping the paste and summarizing what came before it.
  const last = (fake.bodies.at(-1) as string).length;
  const size = WINDOW * 3 - Math.floor((last + 2400) / 2);
  const long = Array.from(
    { length: Math.ceil(size / 60) },
    (_, i) => `${String(i).padStart(4, "0")} ${"lorem ".repeat(9)}`,
  )
    .join("\n")
    .slice(0, size);
  fake.faults.push({ kind: "reply", text: "Noted.", calls: [] });
  paste("day", long);
  tmux("send-keys", "-t", "day", "Enter");
  await waitFor("day", /\[… pasted \d+ lines, \d+ characters\][\s\S]*Noted\./);
  fake.faults.push({
    kind: "reply",
    text: "Summary: hello.txt written; an edit and an rm refused.",
    calls: [],
  });
  await type(
    "day",
    "what now?",
    /\[context ~[\d,]+ of 8,000 tokens: compacting…\]\n\[compacted: older turns summarized in [0-9a-f]{8}\][\s\S]*You said: what now\?/,
  );
  const compactedBody = fake.bodies.at(-1) as string;
  assert.match(compactedBody, /Summary: hello\.txt written/);
  assert.doesNotMatch(compactedBody, /from-bash/, "the summarized turns are out of the context");

  // Ctrl-C during a tool stops it (its process group too); keys typed meanwhile wait, unechoed.
  await type("day", 'call bash {"command":"sleep 37; echo never"}', /allow bash\?/);
  tmux("send-keys", "-t", "day", "y");
  await waitFor("day", /allow bash\? .* y\n/);
  await new Promise((r) => setTimeout(r, 500));
  tmux("send-keys", "-t", "day", "-l", "typed ahead");
  await new Promise((r) => setTimeout(r, 300));
  assert.doesNotMatch(screen("day"), /typed ahead/, "type-ahead is not echoed into the reply");
  const stoppedAt = Date.now();
  tmux("send-keys", "-t", "day", "C-c");
  const stopped = await waitFor("day", /\[aborted\][\s\S]*> typed ahead/);
  assert.ok(Date.now() - stoppedAt < 10_000, "the tool stopped at once");
  assert.match(stopped, /\[result error\] Aborted: the run was stopped while this tool was running/);
  assert.equal(spawnSync("pgrep", ["-f", "sleep 37"]).status, 1, "no sleep left running");

  // Ctrl-C at the prompt: clears the typed line, then asks for a second press, then quits.
  tmux("send-keys", "-t", "day", "C-c");
  await waitFor("day", /\[aborted\](?![\s\S]*typed ahead)[\s\S]*\n>\s*$/);
  tmux("send-keys", "-t", "day", "C-c");
  await waitFor("day", /\(press Ctrl-C again to quit\)/);
  tmux("send-keys", "-t", "day", "C-c");
  await waitFor("day", new RegExp(`bye — resume with: sessiontree chat --resume ${sessionId}`));

  // Today bash is denied outright; the session's history of running it gives it no right.
  writeFileSync(settingsFile, JSON.stringify({ permissions: { deny: ["bash"] } }));
  startChat("next", ["--continue"]);
  const resumed = await waitFor("next", /⚠ The last turn was stopped \(Ctrl-C\) while bash ran/);
  assert.match(resumed, new RegExp(`session ${sessionId}`));
  assert.match(resumed, /model openai\/gpt-test/, "the session keeps its model");
  assert.match(resumed, /── last 3 of \d+ prompts ──/);
  assert.match(
    resumed,
    /> 0000 lorem[^\n]*\n {2}0001 lorem[\s\S]*… \d+ more lines\nNoted\.\n\[compacted: Summary: /,
  );
  assert.match(resumed, /> what now\?\nYou said: what now\?/);
  assert.match(resumed, /\[tool\] bash \$ sleep 37; echo never/);
  assert.match(resumed, /ask: write edit · deny: bash/);
  await type(
    "next",
    'call bash {"command":"echo again"}',
    /\[refused\] Permission denied: bash is refused by rule "deny bash" from \S+settings\.json/,
  );
  await type("next", "/quit", /bye/);

  assert.deepEqual(fake.rejected, [], "every request was one the real API accepts");
  const entries = sessionEntries(sessionId);
  const results = toolResults(entries);
  const byCommand = (text: string) =>
    results.find((r) => {
      const call = entries.find(
        (e) =>
          e.type === "message" &&
          e.message.role === "assistant" &&
          (e.message.content as Array<{ type: string; id?: string }>).some((b) => b.id === r.toolCallId),
      );
      return JSON.stringify(call).includes(text);
    });
  const edit = results.find((r) => r.toolName === "edit");
  assert.equal(edit?.isError, true);
  assert.deepEqual((edit?.details as { refused: string } | undefined)?.refused, "permission");
  const revoked = byCommand("echo again");
  assert.equal(revoked?.isError, true);
  assert.deepEqual((revoked?.details as { rule: unknown } | undefined)?.rule, {
    tool: "bash",
    decision: "deny",
    source: settingsFile,
    text: "bash",
  });
  assert.equal(byCommand("echo from-bash")?.isError, false);
  const compaction = entries.find((e) => e.type === "compaction");
  assert.ok(compaction && compaction.type === "compaction");
  assert.match(compaction.summary, /^Summary: hello\.txt written/);
  const kept = entries.find((e) => e.id === compaction.firstKeptEntryId);
  assert.ok(kept?.type === "message" && JSON.stringify(kept.message).includes("0000 lorem"));
});
