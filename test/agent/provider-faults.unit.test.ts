import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { AgentSession, type AgentSessionOptions, type Repair } from "../../src/agent/index.js";
import type { SessionEntry } from "../../src/core/entry.js";
import type { AssistantMessage } from "../../src/core/messages.js";
import { SessionManager } from "../../src/session/session-manager.js";
import { type Api, fakeApis } from "./fixtures/fake-apis.js";
import { testTools } from "./fixtures/tools.js";

/**
 * The agent against loopback fakes of both APIs that refuse what the real ones refuse and inject
 * one fault each: every test here failed before its fix (issue 15, defects 1, 2, 3, 6, 7, and
 * the retry policy of items 8 and 13).
 */

const apis = fakeApis();
const { fake, provider: providerFor } = apis;

/** An agent on a fresh in-memory session, counting the runs of the echo tool. */
async function agentOn(api: Api, options: Partial<AgentSessionOptions> = {}) {
  const manager = SessionManager.inMemory();
  const echoed: unknown[] = [];
  const tools = testTools().map((tool) =>
    tool.name === "echo"
      ? {
          ...tool,
          execute: (args: unknown, context: Parameters<typeof tool.execute>[1]) => {
            echoed.push(args);
            return tool.execute(args as never, context);
          },
        }
      : tool,
  );
  const provider = providerFor(api);
  const agent = await AgentSession.open({
    session: manager,
    providers: [provider],
    defaultModel: { provider: api, modelId: `${api}-test` },
    tools,
    retry: false,
    failedPrompt: "keep",
    ...options,
  });
  const repairs: Repair[] = [];
  agent.subscribe((e) => {
    if (e.type === "request") repairs.push(...e.repairs);
  });
  fake(api).rejected.length = 0;
  fake(api).faults.length = 0;
  return { manager, agent, echoed, repairs };
}

const assistants = (manager: SessionManager) =>
  manager
    .getBranch()
    .flatMap((e: SessionEntry) =>
      e.type === "message" && e.message.role === "assistant" ? [e.message as AssistantMessage] : [],
    );

const text = (message: AssistantMessage | undefined) =>
  (message?.content ?? []).flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");

for (const api of ["openai", "anthropic"] as const) {
  describe(`${api}: a stream the server ends before its final event (defect 1)`, () => {
    test("cut inside the text: an error reply, never sent back as context", async () => {
      const { manager, agent } = await agentOn(api);
      fake(api).faults.push({ kind: "truncate", inside: "text" });
      const cut = await agent.prompt("tell me a long story");
      assert.equal(cut?.stopReason, "error");
      assert.match(cut?.errorMessage ?? "", /ended before/);
      const next = await agent.prompt("again");
      assert.equal(next?.stopReason, "stop");
      const body = fake(api).bodies.at(-1) as string;
      assert.doesNotMatch(body, /You said: tell/, "the partial reply is not context");
      assert.deepEqual(fake(api).rejected, []);
      assert.deepEqual(
        assistants(manager).map((m) => m.stopReason),
        ["error", "stop"],
      );
    });

    test("cut inside a tool call's arguments: the tool never runs", async () => {
      const { manager, agent, echoed } = await agentOn(api);
      fake(api).faults.push({ kind: "truncate", inside: "tool-arguments" });
      const cut = await agent.prompt('call echo {"text":"a rather long argument"}');
      assert.equal(cut?.stopReason, "error");
      assert.deepEqual(echoed, []);
      const stored = JSON.stringify(manager.getEntries());
      assert.doesNotMatch(stored, /_unparsedArguments/);
      assert.ok(!manager.getEntries().some((e) => e.type === "message" && e.message.role === "toolResult"));
      assert.equal((await agent.prompt("next"))?.stopReason, "stop");
      assert.deepEqual(fake(api).rejected, []);
    });
  });

  describe(`${api}: a refused or filtered reply stays distinguishable (defect 7)`, () => {
    test("an error stop with the provider's reason, not sent back", async () => {
      const { agent } = await agentOn(api);
      const reason = api === "openai" ? "content_filter" : "refusal";
      fake(api).faults.push({ kind: "finish", reason });
      const reply = await agent.prompt("something filtered");
      assert.equal(reply?.stopReason, "error");
      assert.match(reply?.errorMessage ?? "", new RegExp(reason));
      assert.equal((await agent.prompt("next"))?.stopReason, "stop");
      assert.doesNotMatch(fake(api).bodies.at(-1) as string, /You said: something filtered/);
    });
  });

  describe(`${api}: retries (items 8 and 13)`, () => {
    test("429 with retry-after, then 503, then success: one reply, retry events, nothing else written", async () => {
      const { manager, agent } = await agentOn(api, { retry: { baseDelayMs: 1, maxRetries: 3 } });
      const retries: Array<{ attempt: number; delayMs: number }> = [];
      agent.subscribe((e) => {
        if (e.type === "retry") retries.push({ attempt: e.attempt, delayMs: e.delayMs });
      });
      fake(api).faults.push(
        { kind: "status", status: 429, headers: { "retry-after": "0.05" } },
        api === "openai" ? { kind: "drop" } : { kind: "stream-error", type: "overloaded_error" },
        { kind: "status", status: 503 },
      );
      const started = Date.now();
      const reply = await agent.prompt("hello");
      assert.equal(reply?.stopReason, "stop");
      assert.equal(text(reply), "You said: hello");
      assert.deepEqual(retries, [
        { attempt: 1, delayMs: 50 },
        { attempt: 2, delayMs: 2 },
        { attempt: 3, delayMs: 4 },
      ]);
      assert.ok(Date.now() - started >= 50, "retry-after was honoured");
      assert.deepEqual(
        manager.getEntries().map((e) => (e.type === "message" ? e.message.role : e.type)),
        ["user", "assistant"],
      );
    });

    test("a 400 is not retried", async () => {
      const { agent } = await agentOn(api, { retry: { baseDelayMs: 1 } });
      const requests = fake(api).bodies.length;
      fake(api).faults.push({ kind: "status", status: 400 });
      const reply = await agent.prompt("hello");
      assert.equal(reply?.stopReason, "error");
      assert.equal(fake(api).bodies.length, requests + 1);
    });

    test("a retry-after longer than maxDelayMs is reported at once, not waited for", async () => {
      const { agent } = await agentOn(api, { retry: { baseDelayMs: 1, maxDelayMs: 1000 } });
      const requests = fake(api).bodies.length;
      fake(api).faults.push({ kind: "status", status: 429, headers: { "retry-after": "120" } });
      const reply = await agent.prompt("hello");
      assert.equal(reply?.stopReason, "error");
      assert.match(reply?.errorMessage ?? "", /HTTP 429/);
      assert.equal(fake(api).bodies.length, requests + 1);
    });

    test("a prompt that finally failed is not sent again with the next", async () => {
      const { manager, agent } = await agentOn(api, {
        retry: { baseDelayMs: 1, maxRetries: 1 },
        failedPrompt: undefined,
      });
      fake(api).faults.push({ kind: "status", status: 500 }, { kind: "status", status: 500 });
      const failed = await agent.prompt("first try");
      assert.equal(failed?.stopReason, "error");
      const requests = fake(api).bodies.length;
      const reply = await agent.prompt("second try");
      assert.equal(reply?.stopReason, "stop");
      assert.equal(fake(api).bodies.length, requests + 1);
      assert.doesNotMatch(fake(api).bodies.at(-1) as string, /first try/);
      const all = manager.getEntries().filter((e) => e.type === "message");
      assert.equal(all.length, 4, "the failed prompt and its error stay in the tree");
      assert.equal(manager.getBranch().length, 2);
    });

    test("an abort during the wait ends the run as aborted", async () => {
      const { agent } = await agentOn(api, { retry: { baseDelayMs: 10_000 } });
      fake(api).faults.push({ kind: "status", status: 529 });
      const controller = new AbortController();
      agent.subscribe((e) => {
        if (e.type === "retry") controller.abort();
      });
      const reply = await agent.prompt("hello", { signal: controller.signal });
      assert.equal(reply?.stopReason, "aborted");
    });
  });
}

describe("openai: an empty or reasoning-only reply (defect 2)", () => {
  for (const [name, fault] of [
    ["empty", { kind: "reply", text: "", calls: [] }],
    ["reasoning only", { kind: "reply", text: "", thinking: "hmm", calls: [] }],
  ] as const) {
    test(`${name}: stored, skipped in conversion, the next prompt is accepted`, async () => {
      const { manager, agent, repairs } = await agentOn("openai");
      apis.openai.faults.push({ ...fault, calls: [] });
      const empty = await agent.prompt("say nothing");
      assert.equal(empty?.stopReason, "stop");
      const next = await agent.prompt("and now?");
      assert.equal(next?.stopReason, "stop", next?.errorMessage);
      assert.deepEqual(apis.openai.rejected, []);
      assert.ok(repairs.some((r) => r.code === "skipped_empty_assistant"));
      assert.equal(assistants(manager).length, 2);
    });
  }
});

describe("anthropic: thinking switched on after an interrupted tool turn (defect 6)", () => {
  test("the turn finishes with thinking off; the next turn has it again", async () => {
    const manager = SessionManager.inMemory();
    manager.appendMessage({ role: "user", content: "call echo", timestamp: 1 });
    manager.appendMessage({
      role: "assistant",
      content: [{ type: "toolCall", id: "toolu_1", name: "echo", arguments: { text: "x" } }],
      api: "anthropic-messages",
      provider: "anthropic",
      model: "anthropic-test",
      stopReason: "toolUse",
      timestamp: 2,
    } as AssistantMessage);
    // The crash: no tool result. Open repairs it with an "Interrupted" result.
    const { agent, repairs } = await agentOn("anthropic", { session: manager });
    await agent.setThinkingLevel("high");
    const reply = await agent.prompt("go on");
    assert.equal(reply?.stopReason, "stop", reply?.errorMessage);
    assert.deepEqual(apis.anthropic.rejected, []);
    assert.ok(repairs.some((r) => r.code === "thinking_off_for_turn"));
    assert.equal(
      (JSON.parse(apis.anthropic.bodies.at(-1) as string) as { thinking?: unknown }).thinking,
      undefined,
    );
    const after = await agent.prompt("and think now");
    assert.equal(after?.stopReason, "stop");
    assert.equal(after?.content[0]?.type, "thinking");
    assert.deepEqual(apis.anthropic.rejected, []);
  });
});

describe("summaries (defect 3)", () => {
  async function threeTurns() {
    const setup = await agentOn("openai");
    for (const t of ["one", "two", "three"]) await setup.agent.prompt(`turn ${t}`);
    return setup;
  }

  test("an empty summary is an error and no compaction is written", async () => {
    const { manager, agent } = await threeTurns();
    const before = manager.getEntries().length;
    apis.openai.faults.push({ kind: "reply", text: "", calls: [] });
    await assert.rejects(agent.compact({ keepRecentTokens: 1 }), { code: "provider_error" });
    assert.equal(manager.getEntries().length, before);
    assert.ok(!manager.getEntries().some((e) => e.type === "compaction"));
  });

  test("a summary stream cut short is an error too", async () => {
    const { manager, agent } = await threeTurns();
    apis.openai.faults.push({ kind: "truncate", inside: "text" });
    await assert.rejects(agent.compact({ keepRecentTokens: 1 }), { code: "provider_error" });
    assert.ok(!manager.getEntries().some((e) => e.type === "compaction"));
  });

  test("a cut inside the first turn asks no summary of nothing", async () => {
    const { manager, agent } = await agentOn("openai");
    await agent.prompt('call echo {"text":"x"}');
    const requests = apis.openai.bodies.length;
    const id = await agent.compact({ keepRecentTokens: 1 });
    assert.ok(id);
    const asked = apis.openai.bodies.slice(requests);
    assert.equal(asked.length, 1, "only the split turn's prefix is summarized");
    assert.ok(!asked.some((b) => b.includes("<conversation>\\n\\n</conversation>")));
    const compaction = manager.getEntry(id as string) as Extract<SessionEntry, { type: "compaction" }>;
    assert.match(compaction.summary, /^No prior history\.\n\n---\n\n\*\*Turn Context/);
  });

  test("an empty branch summary is an error; the leaf stays and nothing is written", async () => {
    const { manager, agent } = await threeTurns();
    const target = (manager.getBranch()[1] as SessionEntry).id;
    const leaf = manager.getLeafId();
    const before = manager.getEntries().length;
    apis.openai.faults.push({ kind: "reply", text: "  ", calls: [] });
    await assert.rejects(agent.navigate(target, { summarize: true }), { code: "provider_error" });
    assert.equal(manager.getLeafId(), leaf);
    assert.equal(manager.getEntries().length, before);
  });
});
