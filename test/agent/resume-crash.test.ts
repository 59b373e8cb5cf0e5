import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { INTERRUPTED_RESULT_TEXT } from "../../src/agent/resume.js";
import { SessionManager } from "../../src/session/session-manager.js";
import { killAgent, runAgent, startAgent } from "./fixtures/child.js";
import { type FakeOpenAi, startFakeOpenAi } from "./fixtures/fake-openai.js";

// Five prompts; the fourth runs the `slow` tool, where the mid-turn kill happens.
const SCRIPTED = [
  'call echo {"text":"one"}',
  'call add {"a":2,"b":3}',
  "hello",
  "call slow {}",
  "final words",
];
const OPENAI = ['call echo {"text":"one"}', 'call add {"a":2,"b":3}', "hello", "call slow {}", "final words"];

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), "sessiontree-agent-crash-"));
});
after(() => rmSync(dir, { recursive: true, force: true }));

const readLines = (file: string) => readFileSync(file, "utf8").split("\n").filter(Boolean);
type Msg = { role: string; content: unknown };
const messagesOf = (body: string) => (JSON.parse(body) as { messages: Msg[] }).messages;

describe("resume after SIGKILL, scripted model", () => {
  let reference: string[];
  before(async () => {
    const recordFile = join(dir, "ref.requests");
    await runAgent({ file: join(dir, "ref.jsonl"), provider: "scripted", prompts: SCRIPTED, recordFile });
    reference = readLines(recordFile);
  });

  test("killed between turns: every later request is byte-identical to the uninterrupted run", async () => {
    const file = join(dir, "between.jsonl");
    const recordFile = join(dir, "between.requests");
    const child = startAgent({
      file,
      provider: "scripted",
      prompts: SCRIPTED.slice(0, 3),
      recordFile,
      hangAtEnd: true,
    });
    await child.waitFor("DONE");
    await killAgent(child);
    await runAgent({ file, provider: "scripted", prompts: SCRIPTED.slice(3), recordFile });
    const requests = readLines(recordFile);
    assert.equal(requests.length, reference.length);
    assert.deepEqual(requests, reference);
  });

  test("killed inside a tool call: the turn is visibly aborted, the prefix byte-identical", async () => {
    const file = join(dir, "mid.jsonl");
    const recordFile = join(dir, "mid.requests");
    const child = startAgent({
      file,
      provider: "scripted",
      prompts: SCRIPTED.slice(0, 4),
      recordFile,
      slowHangs: true,
    });
    await child.waitFor("SLOW_STARTED");
    await killAgent(child);
    const beforeKill = readLines(recordFile).length;
    await runAgent({ file, provider: "scripted", prompts: SCRIPTED.slice(4), recordFile });
    const requests = readLines(recordFile);
    // Up to the request that produced the slow call, the run is the reference run.
    assert.deepEqual(requests.slice(0, beforeKill), reference.slice(0, beforeKill));
    const resumed = messagesOf(requests[beforeKill] as string);
    const uninterrupted = messagesOf(reference[beforeKill + 1] as string);
    // Same prefix through the assistant's tool call; then the interrupted result instead of "slow done".
    const callIndex =
      resumed.findIndex((m) => m.role === "tool" && m.content === INTERRUPTED_RESULT_TEXT) - 1;
    assert.ok(callIndex > 0);
    assert.deepEqual(resumed.slice(0, callIndex + 1), uninterrupted.slice(0, callIndex + 1));
    assert.equal(toolCallId(resumed[callIndex]), toolCallId(uninterrupted[callIndex]));
    assert.deepEqual(resumed.at(-1), { role: "user", content: "final words" });
    assert.equal(resumed.length, callIndex + 3);
    assertStoredTurnAborted(file);
  });
});

describe("resume after SIGKILL, OpenAI-compatible adapter against a loopback server", () => {
  let server: FakeOpenAi;
  let reference: string[];
  before(async () => {
    server = await startFakeOpenAi();
    await runAgent({
      file: join(dir, "oa-ref.jsonl"),
      provider: "openai",
      baseUrl: server.url,
      prompts: OPENAI,
    });
    reference = server.bodies.splice(0);
  });
  after(() => server.close());

  test("killed between turns: the server receives byte-identical bodies", async () => {
    const file = join(dir, "oa-between.jsonl");
    const child = startAgent({
      file,
      provider: "openai",
      baseUrl: server.url,
      prompts: OPENAI.slice(0, 3),
      hangAtEnd: true,
    });
    await child.waitFor("DONE");
    await killAgent(child);
    await runAgent({ file, provider: "openai", baseUrl: server.url, prompts: OPENAI.slice(3) });
    assert.deepEqual(server.bodies.splice(0), reference);
  });

  test("killed inside a tool call: prefix identical, tool result visibly interrupted", async () => {
    const file = join(dir, "oa-mid.jsonl");
    const child = startAgent({
      file,
      provider: "openai",
      baseUrl: server.url,
      prompts: OPENAI.slice(0, 4),
      slowHangs: true,
    });
    await child.waitFor("SLOW_STARTED");
    await killAgent(child);
    const beforeKill = server.bodies.length;
    assert.deepEqual(server.bodies.slice(0, beforeKill), reference.slice(0, beforeKill));
    await runAgent({ file, provider: "openai", baseUrl: server.url, prompts: OPENAI.slice(4) });
    const resumed = messagesOf(server.bodies[beforeKill] as string);
    const uninterrupted = messagesOf(reference[beforeKill + 1] as string);
    const callIndex =
      resumed.findIndex((m) => m.role === "tool" && String(m.content) === INTERRUPTED_RESULT_TEXT) - 1;
    assert.ok(callIndex > 0);
    assert.deepEqual(resumed.slice(0, callIndex + 1), uninterrupted.slice(0, callIndex + 1));
    assert.deepEqual(resumed.at(-1), { role: "user", content: "final words" });
    server.bodies.splice(0);
    assertStoredTurnAborted(file);
  });

  test("killed while the reply streams: the reply is stored as aborted and never sent again", async () => {
    const file = join(dir, "oa-stream.jsonl");
    const stalled = server.stalled();
    const child = startAgent({
      file,
      provider: "openai",
      baseUrl: server.url,
      prompts: ["hello", "please stall now"],
    });
    await stalled;
    await killAgent(child);
    const sent = server.bodies.splice(0);
    await runAgent({ file, provider: "openai", baseUrl: server.url, prompts: ["again"] });
    const resumed = messagesOf(server.bodies.splice(0)[0] as string);
    // The stalled request's messages, then the new prompt: the aborted reply is not in the request.
    assert.deepEqual(resumed, [...messagesOf(sent[1] as string), { role: "user", content: "again" }]);
    const manager = SessionManager.open(file);
    const aborted = manager
      .getEntries()
      .filter(
        (e) => e.type === "message" && e.message.role === "assistant" && e.message.stopReason === "aborted",
      );
    assert.equal(aborted.length, 1);
    manager.close();
  });
});

function toolCallId(message: Msg | undefined): string {
  const calls = (message as unknown as { tool_calls: Array<{ id: string }> }).tool_calls;
  return (calls[0] as { id: string }).id;
}

/** The killed turn is in the file as an assistant tool call followed by an interrupted error result. */
function assertStoredTurnAborted(file: string): void {
  const manager = SessionManager.open(file);
  const results = manager
    .getBranch()
    .flatMap((e) => (e.type === "message" && e.message.role === "toolResult" ? [e.message] : []));
  const interrupted = results.filter(
    (m) => (m.details as { interrupted?: boolean } | undefined)?.interrupted,
  );
  assert.equal(interrupted.length, 1);
  assert.equal(interrupted[0]?.isError, true);
  manager.close();
}
