/**
 * A provider that refuses the context as over the model's window (the estimate before the prompt
 * said it fit: a tokenizer that counts otherwise, a tool result larger than it looked). With
 * automatic compaction on, the agent compacts and runs once more from the compacted context, as
 * pi does; the refusal is the real APIs' own (HTTP 400 with their bodies), through the real
 * providers and loopback fakes that refuse what the real APIs refuse.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { isContextOverflow } from "../../src/agent/compaction/overflow.js";
import { type AgentEvent, AgentSession, type AgentSessionOptions } from "../../src/agent/index.js";
import type { AssistantMessage } from "../../src/core/messages.js";
import { SessionManager } from "../../src/session/session-manager.js";
import { type Api, fakeApis } from "./fixtures/fake-apis.js";
import type { Fault } from "./fixtures/faults.js";

/** The bodies the APIs answer a context over the window with (HTTP 400). */
const OVERFLOW_BODY: Record<Api, unknown> = {
  anthropic: {
    type: "error",
    error: { type: "invalid_request_error", message: "prompt is too long: 213462 tokens > 200000 maximum" },
  },
  openai: {
    error: {
      message:
        "This model's maximum context length is 128000 tokens. However, your messages resulted in 130218 tokens. Please reduce the length of the messages.",
      type: "invalid_request_error",
      param: "messages",
      code: "context_length_exceeded",
    },
  },
};
const overflow = (api: Api): Fault => ({ kind: "status", status: 400, body: OVERFLOW_BODY[api] });

const { fake, provider: providerFor } = fakeApis();

/** An agent on a fresh session holding two long exchanges (something older to compact). */
async function agentWithHistory(api: Api, options: Partial<AgentSessionOptions> = {}) {
  const manager = SessionManager.inMemory();
  const provider = providerFor(api);
  const agent = await AgentSession.open({
    session: manager,
    providers: [provider],
    defaultModel: { provider: api, modelId: `${api}-test` },
    retry: false,
    contextWindow: 100_000,
    compaction: { keepRecentTokens: 50, reserveTokens: 1_000 },
    ...options,
  });
  await agent.prompt(`one ${"older words ".repeat(200)}`);
  await agent.prompt(`two ${"older words ".repeat(200)}`);
  const events: AgentEvent[] = [];
  agent.subscribe((e) => {
    events.push(e);
  });
  fake(api).bodies.length = 0;
  fake(api).faults.length = 0;
  return { manager, agent, events };
}

const kinds = (manager: SessionManager) =>
  manager.getBranch().map((e) => (e.type === "message" ? e.message.role : e.type));

for (const api of ["anthropic", "openai"] as const) {
  describe(`context over the model's window (${api})`, () => {
    test("is compacted, and the run goes on once from the compacted context", async () => {
      const { manager, agent, events } = await agentWithHistory(api);
      fake(api).faults.push(overflow(api));
      const reply = await agent.prompt("three");
      assert.equal(reply?.stopReason, "stop");
      assert.match(JSON.stringify(reply?.content), /You said: three/);
      const compaction = events.filter((e) => e.type === "compaction_start" || e.type === "compaction_end");
      assert.deepEqual(
        compaction.map((e) => `${e.type} ${e.reason}`),
        ["compaction_start overflow", "compaction_end overflow"],
      );
      const written = manager.getBranch().find((e) => e.type === "compaction");
      assert.ok(written && compaction[1]?.type === "compaction_end" && compaction[1].entryId === written.id);
      // The refused request, the summary's (one or two: a cut inside a turn summarizes its start
      // apart), and the run from the compacted context, which starts at the summary.
      const bodies = fake(api).bodies.map((body) => JSON.parse(body) as { messages: unknown[] });
      assert.ok(bodies.length >= 3);
      for (const summary of bodies.slice(1, -1)) assert.match(JSON.stringify(summary), /<conversation>/);
      const retried = bodies.at(-1)?.messages ?? [];
      assert.match(JSON.stringify(retried[0]), /compacted into the following summary/);
      assert.match(JSON.stringify(retried.at(-1)), /three/);
      assert.deepEqual(kinds(manager).slice(-4), ["user", "assistant", "compaction", "assistant"]);
      assert.ok(!events.some((e) => e.type === "prompt_rewound"));
    });

    test("refused again after the compaction: the error stands, one compaction, no loop", async () => {
      const { manager, agent } = await agentWithHistory(api);
      fake(api).faults.push(overflow(api));
      // The request after the compaction (the run's second try) is refused too.
      agent.subscribe((e) => {
        if (e.type === "compaction_end") fake(api).faults.push(overflow(api));
      });
      const reply = await agent.prompt("three");
      assert.equal(reply?.stopReason, "error");
      assert.ok(reply && isContextOverflow(reply));
      assert.equal(fake(api).faults.length, 0, "the second refusal was met");
      assert.equal(manager.getEntries().filter((e) => e.type === "compaction").length, 1);
      assert.deepEqual(kinds(manager).slice(-3), ["assistant", "compaction", "assistant"]);
    });

    test("without automatic compaction the error stands and the prompt is rewound, as before", async () => {
      const { manager, agent, events } = await agentWithHistory(api, { contextWindow: undefined });
      const leaf = manager.getLeafId();
      fake(api).faults.push(overflow(api));
      const reply = await agent.prompt("three");
      assert.equal(reply?.stopReason, "error");
      assert.equal(fake(api).bodies.length, 1);
      assert.ok(!events.some((e) => e.type === "compaction_start"));
      assert.equal(manager.getLeafId(), leaf, "the failed prompt went to a side branch");
    });
  });
}

describe("isContextOverflow", () => {
  const failed = (errorMessage: string): AssistantMessage =>
    ({
      role: "assistant",
      content: [],
      stopReason: "error",
      errorMessage,
      api: "test",
      provider: "test",
      model: "test",
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: {} },
      timestamp: 0,
    }) as unknown as AssistantMessage;

  test("reads the providers' own overflow errors", () => {
    for (const text of [
      `HTTP 400: ${JSON.stringify(OVERFLOW_BODY.anthropic)}`,
      `HTTP 400: ${JSON.stringify(OVERFLOW_BODY.openai)}`,
      'HTTP 413: {"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum size"}}',
      'HTTP 400: {"error":{"message":"Your input exceeds the context window of this model. Please adjust your input and try again.","type":"invalid_request_error","code":"context_length_exceeded"}}',
      "HTTP 400: This endpoint's maximum context length is 131072 tokens. However, you requested about 140000 tokens",
      "HTTP 400: the request exceeds the available context size, try increasing it",
    ])
      assert.equal(isContextOverflow(failed(text)), true, text);
  });

  test("is not fooled by a rate limit, another 400, or a reply that did not fail", () => {
    for (const text of [
      'HTTP 429: {"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization of 400,000 input tokens per minute"}}',
      "HTTP 429: Rate limit reached: too many tokens per minute, context length exceeded for the minute",
      'HTTP 400: {"error":{"message":"Invalid value for \'tool_choice\'","type":"invalid_request_error"}}',
      "HTTP 401: invalid x-api-key",
    ])
      assert.equal(isContextOverflow(failed(text)), false, text);
    const reply = { ...failed("prompt is too long"), stopReason: "stop" } as AssistantMessage;
    assert.equal(isContextOverflow(reply), false);
  });
});
