/**
 * The agent layer and the adapters against fake providers that refuse what the real APIs refuse,
 * stricter than fixtures/api-rules.ts: model-bound thinking signatures, redacted thinking, empty
 * text inside tool results, unique tool ids, OpenAI's 40-character tool call ids. Each request is
 * built by the real converters (`anthropicBody`, `openAiBody`) from the context AgentSession
 * projects, through every code path a real agent life takes: crash between a tool call and its
 * result, provider errors and aborts mid-stream, rewinds into a tool turn, compaction right after
 * a tool call, tools removed, a custom entry last, a long session, and sessions another writer
 * (pi, the OpenAI Agents adapter) wrote. Where pi applies, the tool pairing of the request is
 * compared with pi's own (`buildSessionContext` + pi-ai's `transformMessages`).
 *
 * The tests marked "regression" each failed before their fix.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { convertToLlm, SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import { Type } from "@sinclair/typebox";
import { transformMessages } from "../../node_modules/@mariozechner/pi-ai/dist/providers/transform-messages.js";
import { SessionTreeSession } from "../../src/adapters/openai-agents/session.js";
import { anthropicBody } from "../../src/agent/convert/anthropic-payload.js";
import { toLlmMessages } from "../../src/agent/convert/llm-messages.js";
import { openAiBody } from "../../src/agent/convert/openai-payload.js";
import { AgentSession, type AgentTool, defineTool, StoreBackend } from "../../src/agent/index.js";
import type { Provider, ProviderEvent, ProviderRequest } from "../../src/agent/provider.js";
import { usageOf } from "../../src/agent/provider.js";
import type { AgentMessage } from "../../src/core/messages.js";
import { SessionManager } from "../../src/session/session-manager.js";
import { MemoryStore } from "../../src/store/memory/index.js";
import { openStore } from "../../src/store/registry.js";
import type { SessionStore } from "../../src/store/store.js";
import { anthropicViolations, openAiViolations } from "./fixtures/api-rules.js";
import { testTools } from "./fixtures/tools.js";

// Request payloads and messages are walked field by field, whatever their shape.
// biome-ignore lint/suspicious/noExplicitAny: see above
type Json = Record<string, any>;

const dir = mkdtempSync(join(tmpdir(), "sessiontree-strict-provider-"));
after(() => rmSync(dir, { recursive: true, force: true }));

// ---- strict validators (the real APIs' 400s) ----

/**
 * Anthropic Messages, beyond api-rules.ts: text blocks inside tool_result non-empty; tool_use ids
 * unique and matching ^[a-zA-Z0-9_-]{1,64}$; a thinking block's signature is bound to the model
 * that produced it (this fake signs `sig.<model>`), redacted_thinking data too (`red.<model>`).
 */
function strictAnthropic(payload: Json): string[] {
  const problems = anthropicViolations(payload);
  const ids = new Set<string>();
  (payload.messages as Json[]).forEach((m, i) => {
    const blocks = typeof m.content === "string" ? [] : (m.content as Json[]);
    blocks.forEach((b, j) => {
      const at = `messages.${i}.content.${j}`;
      if (b.type === "tool_result" && Array.isArray(b.content)) {
        for (const c of b.content as Json[])
          if (c.type === "text" && !String(c.text ?? "").trim())
            problems.push(`${at}: text content blocks must be non-empty`);
      }
      if (b.type === "tool_use") {
        if (ids.has(b.id)) problems.push(`${at}: \`tool_use\` ids must be unique`);
        ids.add(b.id);
        if (!/^[a-zA-Z0-9_-]{1,64}$/.test(String(b.id)))
          problems.push(`${at}.id: String should match pattern`);
      }
      if (b.type === "thinking" && b.signature !== `sig.${payload.model}`)
        problems.push(`${at}: Invalid \`signature\` in \`thinking\` block`);
      if (b.type === "redacted_thinking" && b.data !== `red.${payload.model}`)
        problems.push(`${at}: Invalid \`data\` in \`redacted_thinking\` block`);
    });
  });
  return problems;
}

/** OpenAI Chat Completions, beyond api-rules.ts: tool call ids at most 40 characters, unique. */
function strictOpenAi(payload: Json): string[] {
  const problems = openAiViolations(payload);
  const ids = new Set<string>();
  (payload.messages as Json[]).forEach((m, i) => {
    for (const call of (m.tool_calls as Json[] | undefined) ?? []) {
      if (String(call.id).length > 40)
        problems.push(
          `Invalid 'messages[${i}].tool_calls[0].id': string too long (${String(call.id).length})`,
        );
      if (ids.has(call.id)) problems.push(`messages[${i}]: duplicate tool call id ${call.id}`);
      ids.add(call.id);
    }
  });
  return problems;
}

/**
 * A provider whose request body is the real converter's, refused (a non-retryable 400) when the
 * strict rules say so. Replies: `call NAME {json}` in the last user text → tool calls; tool
 * results → text; a summary request → a summary. With thinking on, a thinking block signed for
 * the request's model first. `faults`: one per model call ("error": a 400 after some text; "hang":
 * streams until aborted; undefined: a normal reply).
 */
class StrictProvider implements Provider {
  readonly name: string;
  readonly api: string;
  readonly bodies: Json[] = [];
  readonly rejected: string[][] = [];
  readonly faults: Array<"error" | "hang" | undefined> = [];
  /** Called when a "hang" fault starts streaming (a test aborts there). */
  onHang?: () => void;
  private ids = 0;

  constructor(readonly kind: "anthropic" | "openai") {
    this.name = kind;
    this.api = kind === "anthropic" ? "anthropic-messages" : "openai-completions";
  }

  requestBody(request: ProviderRequest) {
    return this.kind === "anthropic" ? anthropicBody(request) : openAiBody(request);
  }

  async *stream(request: ProviderRequest, signal?: AbortSignal): AsyncGenerator<ProviderEvent> {
    const payload = JSON.parse(this.requestBody(request).body) as Json;
    this.bodies.push(payload);
    const violations = this.kind === "anthropic" ? strictAnthropic(payload) : strictOpenAi(payload);
    if (violations.length > 0) {
      this.rejected.push(violations);
      yield { type: "error", message: `400 ${violations.join("; ")}`, aborted: false, status: 400 };
      return;
    }
    const fault = this.faults.shift();
    if (fault === "error") {
      yield { type: "text_delta", delta: "partial" };
      yield { type: "error", message: "400 invalid", aborted: false, status: 400, retryable: false };
      return;
    }
    if (fault === "hang") {
      yield { type: "text_delta", delta: "partial" };
      this.onHang?.();
      await new Promise<void>((resolve) =>
        signal?.addEventListener("abort", () => resolve(), { once: true }),
      );
      yield { type: "error", message: "aborted", aborted: true };
      return;
    }
    const messages = payload.messages as Json[];
    const last = messages[messages.length - 1] as Json;
    const blocks: Json[] =
      typeof last.content === "string" ? [{ type: "text", text: last.content }] : last.content;
    const text = blocks
      .filter((b) => b.type === "text")
      .map((b) => b.text)
      .join("\n");
    const answersTools = last.role === "tool" || blocks.at(-1)?.type === "tool_result";
    if (payload.thinking)
      yield { type: "thinking_delta", delta: "thinking", signature: `sig.${payload.model}` };
    const calls =
      answersTools || text.includes("<conversation>") ? [] : [...text.matchAll(/call (\w+) (\{[^}]*\})/g)];
    for (const [, name, args] of calls)
      yield {
        type: "tool_call",
        id: `toolu_${++this.ids}`,
        name: name as string,
        arguments: JSON.parse(args as string),
      };
    if (calls.length > 0) {
      yield { type: "done", stopReason: "toolUse", usage: usageOf(10, 5) };
      return;
    }
    yield { type: "text_delta", delta: text.includes("<conversation>") ? "## Goal\nsummary" : "answer" };
    yield { type: "done", stopReason: "stop", usage: usageOf(10, 5) };
  }
}

// ---- tools, storage, pi comparison ----

let hangStarted: () => void = () => undefined;
const echo = testTools().find((tool) => tool.name === "echo") as AgentTool;
const hang = defineTool({
  name: "hang",
  description: "Never returns (the process dies while it runs)",
  parameters: Type.Object({}),
  execute: async () => {
    hangStarted();
    await new Promise(() => undefined);
    return { content: "never" };
  },
});
const quiet = defineTool({
  name: "quiet",
  description: "Succeeds and prints nothing",
  parameters: Type.Object({}),
  execute: async () => ({ content: "" }),
});
const TOOLS = [echo, hang, quiet] as AgentTool[];

type Kind = "file" | "sqlite" | "memory";

/** A session on one storage; `open()` is what a new process would get. */
async function storage(
  kind: Kind,
  name: string,
): Promise<{ open: () => Promise<SessionManager | StoreBackend>; file?: string }> {
  if (kind === "file") {
    const manager = SessionManager.create(dir, join(dir, name));
    manager.appendMessage({ role: "user", content: [{ type: "text", text: "hello" }], timestamp: 1 });
    manager.appendMessage({
      role: "assistant",
      content: [{ type: "text", text: "hi" }],
      api: "openai-completions",
      provider: "openai",
      model: "m",
      usage: {},
      stopReason: "stop",
      timestamp: 2,
    });
    const file = manager.getSessionFile() as string;
    return { open: async () => SessionManager.open(file), file };
  }
  const store: SessionStore =
    kind === "memory" ? new MemoryStore() : await openStore(`sqlite:${join(dir, `${name}.db`)}`);
  await store.init();
  const { id } = await store.createSession("o", { cwd: dir });
  return { open: async () => StoreBackend.open(store, "o", id) };
}

function open(session: unknown, provider: StrictProvider, tools = TOOLS) {
  return AgentSession.open({
    session: session as never,
    providers: [provider],
    defaultModel: { provider: provider.name, modelId: "claude-a" },
    tools,
  });
}

/** The request's shape: U, A:<tool call ids>, R:<id> (failed assistant turns left out, as both do). */
function pairing(messages: readonly Json[]): string[] {
  return messages
    .filter((m) => !(m.role === "assistant" && (m.stopReason === "error" || m.stopReason === "aborted")))
    .map((m) =>
      m.role === "toolResult"
        ? `R:${m.toolCallId}`
        : m.role === "assistant"
          ? `A:${(m.content as Json[])
              .filter((b) => b.type === "toolCall")
              .map((b) => b.id)
              .join(",")}`
          : "U",
    );
}

function ours(messages: readonly AgentMessage[]): string[] {
  return pairing(toLlmMessages(messages).messages as unknown as Json[]);
}

/** What pi sends for the same file: its projection, convertToLlm, pi-ai's transformMessages. */
function pis(file: string): string[] {
  const context = PiSessionManager.open(file).buildSessionContext();
  const model = { provider: "anthropic", api: "anthropic-messages", id: "claude-a", input: ["text"] };
  return pairing(
    transformMessages(convertToLlm(context.messages as never), model as never) as unknown as Json[],
  );
}

// ---- correct behaviour, pinned ----

for (const kind of ["file", "sqlite", "memory"] as Kind[]) {
  for (const api of ["anthropic", "openai"] as const) {
    describe(`agent life on ${kind}, ${api} rules (thinking on)`, () => {
      test("a crash between parallel tool calls and their results, then resume: valid, pi's pairing", async () => {
        const st = await storage(kind, `crash-${api}`);
        const provider = new StrictProvider(api);
        const first = await open(await st.open(), provider);
        await first.setThinkingLevel("low");
        const started = new Promise<void>((resolve) => {
          hangStarted = resolve;
        });
        void first.prompt('call echo {"text":"a"} call hang {}');
        await started; // the process "dies" here: echo's result is stored, hang's never will be
        const resumed = await open(await st.open(), provider);
        await resumed.prompt("go on");
        assert.deepEqual(provider.rejected, []);
        const context = await resumed.context();
        const results = context.messages.filter((m) => m.role === "toolResult") as Json[];
        assert.deepEqual(
          results.map((r) => r.details?.interrupted === true),
          [false, true],
        );
        if (st.file) assert.deepEqual(ours(context.messages), pis(st.file));
      });

      test("provider error and abort mid-stream inside a tool turn, then retry and resume", async () => {
        const st = await storage(kind, `faults-${api}`);
        const provider = new StrictProvider(api);
        const agent = await open(await st.open(), provider);
        await agent.setThinkingLevel("low");
        provider.faults.push(undefined, "error");
        await agent.prompt('call echo {"text":"a"}');
        await agent.prompt("again");
        const controller = new AbortController();
        provider.faults.push(undefined, "hang");
        provider.onHang = () => setTimeout(() => controller.abort(), 5);
        await agent.prompt('call echo {"text":"b"}', { signal: controller.signal });
        await agent.prompt("retry");
        const resumed = await open(await st.open(), provider);
        await resumed.prompt("resumed");
        assert.deepEqual(provider.rejected, []);
        if (st.file) assert.deepEqual(ours((await resumed.context()).messages), pis(st.file));
      });

      test("rewind into a tool turn, continue from its call, compact right after a tool call, resume", async () => {
        const st = await storage(kind, `rewind-${api}`);
        const provider = new StrictProvider(api);
        const agent = await open(await st.open(), provider);
        await agent.setThinkingLevel("low");
        await agent.prompt('call echo {"text":"a"} call echo {"text":"b"}');
        const context = await agent.context();
        const at = (role: string) =>
          context.messageEntryIds[
            context.messages.findIndex((m) => m.role === role && m !== context.messages.at(-1))
          ] as string;
        await agent.navigate(at("toolResult")); // between the two results
        await agent.prompt("from the middle");
        await agent.navigate(
          context.messageEntryIds[
            context.messages.findIndex((m) => m.role === "assistant" && (m as Json).stopReason === "toolUse")
          ] as string,
        );
        await agent.continue();
        await agent.navigate(at("toolResult"));
        const resumed = await open(await st.open(), provider);
        await resumed.prompt("resumed in the middle");
        await resumed.prompt('call echo {"text":"c"}');
        await resumed.compact({ keepRecentTokens: 1 });
        await resumed.prompt("after compaction");
        const again = await open(await st.open(), provider);
        await again.prompt("after compaction, resumed");
        assert.deepEqual(provider.rejected, []);
        if (st.file) assert.deepEqual(ours((await again.context()).messages), pis(st.file));
      });

      test("long session, crash in a tool call, a custom entry last, resumed with the tool removed", async () => {
        const st = await storage(kind, `long-${api}`);
        const provider = new StrictProvider(api);
        const agent = await open(await st.open(), provider);
        for (let i = 0; i < 60; i++) await agent.prompt(`call echo {"text":"${i}"}`);
        const started = new Promise<void>((resolve) => {
          hangStarted = resolve;
        });
        void agent.prompt("call hang {}");
        await started;
        const session = await st.open();
        // The app stored its state after the call was written, then the process died.
        if (session instanceof SessionManager) session.appendCustomEntry("app.state", { n: 1 });
        else
          await session.appendUnder(session.leafId(), {
            type: "custom",
            customType: "app.state",
            data: { n: 1 },
          });
        const resumed = await open(session, provider, [echo] as AgentTool[]);
        assert.deepEqual(resumed.getExtensionState(), { "app.state": { n: 1 } });
        await resumed.prompt("call hang {}");
        assert.deepEqual(provider.rejected, []);
        const messages = (await resumed.context()).messages as Json[];
        assert.match(
          messages.at(-2)?.content[0].text,
          /not available in this session's current configuration/,
        );
        assert.equal(messages.filter((m) => m.details?.interrupted).length, 1);
        if (st.file) assert.deepEqual(ours(messages as AgentMessage[]), pis(st.file));
      });
    });
  }
}

// ---- regressions: each failed before its fix ----

const assistant = (content: Json[], provider: string, api: string, model: string, stopReason = "stop") =>
  ({ role: "assistant", content, api, provider, model, usage: {}, stopReason, timestamp: 2 }) as never;

describe("regressions", () => {
  test("regression: a tool that prints nothing is not sent to Anthropic as an empty text block", async () => {
    const provider = new StrictProvider("anthropic");
    const agent = await open(SessionManager.inMemory(), provider);
    await agent.prompt("call quiet {}");
    // Sent: {"type":"tool_result","content":[{"type":"text","text":""}]} → 400 text content blocks must be non-empty
    assert.deepEqual(provider.rejected, []);
  });

  test("regression: thinking signed by one Claude model is not replayed with its signature to another", async () => {
    const provider = new StrictProvider("anthropic");
    const agent = await open(SessionManager.inMemory(), provider);
    await agent.setThinkingLevel("low");
    await agent.prompt('call echo {"text":"x"}');
    await agent.setModel("anthropic", "claude-b");
    await agent.prompt("and now?");
    assert.deepEqual(provider.rejected, []);
  });

  test("regression: a pi session's foreign thinking signature is not sent to Anthropic as a signature", async () => {
    const manager = SessionManager.inMemory();
    manager.appendMessage({ role: "user", content: [{ type: "text", text: "hi" }], timestamp: 1 });
    // pi-ai's openai-completions stores the reasoning field's name as the signature.
    const thinking = { type: "thinking", thinking: "deep thought", thinkingSignature: "reasoning_content" };
    manager.appendMessage(
      assistant([thinking, { type: "text", text: "hello" }], "deepseek", "openai-completions", "r1"),
    );
    manager.appendModelChange("anthropic", "claude-a");
    const provider = new StrictProvider("anthropic");
    const agent = await open(manager, provider);
    await agent.prompt("next");
    assert.deepEqual(provider.rejected, []);
  });

  test("regression: pi's redacted thinking is sent back as redacted_thinking on the same model", async () => {
    const manager = SessionManager.inMemory();
    manager.appendMessage({
      role: "user",
      content: [{ type: "text", text: 'call echo {"text":"a"}' }],
      timestamp: 1,
    });
    const redacted = {
      type: "thinking",
      thinking: "[Reasoning redacted]",
      thinkingSignature: "red.claude-a",
      redacted: true,
    };
    const call = { type: "toolCall", id: "toolu_9", name: "echo", arguments: { text: "a" } };
    manager.appendMessage(
      assistant([redacted, call], "anthropic", "anthropic-messages", "claude-a", "toolUse"),
    );
    manager.appendMessage({
      role: "toolResult",
      toolCallId: "toolu_9",
      toolName: "echo",
      content: [{ type: "text", text: "echo: a" }],
      isError: false,
      timestamp: 3,
    });
    manager.appendThinkingLevelChange("low");
    const provider = new StrictProvider("anthropic");
    const agent = await open(manager, provider);
    await agent.continue();
    assert.deepEqual(provider.rejected, []);
    assert.deepEqual(provider.bodies[0]?.messages[1].content[0], {
      type: "redacted_thinking",
      data: "red.claude-a",
    });
  });

  test("regression: OpenAI Responses tool call ids (call|item, over 40 characters) are normalized as pi does", async () => {
    const manager = SessionManager.inMemory();
    const id = "call_abcdefghijklmnopqrstuvwx|fc_0123456789abcdef0123456789abcdef0123456789abcdef";
    manager.appendMessage({ role: "user", content: [{ type: "text", text: "x" }], timestamp: 1 });
    const call = { type: "toolCall", id, name: "echo", arguments: { text: "a" } };
    manager.appendMessage(assistant([call], "openai", "openai-responses", "gpt-5", "toolUse"));
    manager.appendMessage({
      role: "toolResult",
      toolCallId: id,
      toolName: "echo",
      content: [{ type: "text", text: "echo: a" }],
      isError: false,
      timestamp: 3,
    });
    const provider = new StrictProvider("openai");
    const agent = await open(manager, provider);
    await agent.prompt("next");
    assert.deepEqual(provider.rejected, []);
  });

  // The OpenAI Agents SDK's items for one reply with two parallel calls, as the Runner saves them.
  const parallelItems = [
    { role: "user", content: "Weather in Paris and Rome?" },
    {
      type: "function_call",
      callId: "call_A",
      name: "weather",
      arguments: '{"city":"Paris"}',
      status: "completed",
      id: "fc_1",
    },
    {
      type: "function_call",
      callId: "call_B",
      name: "weather",
      arguments: '{"city":"Rome"}',
      status: "completed",
      id: "fc_2",
    },
    {
      type: "function_call_result",
      callId: "call_A",
      name: "weather",
      status: "completed",
      output: { type: "text", text: "Paris: 18C" },
    },
    {
      type: "function_call_result",
      callId: "call_B",
      name: "weather",
      status: "completed",
      output: { type: "text", text: "Rome: 25C" },
    },
    {
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: "Paris 18C, Rome 25C." }],
    },
  ] as never[];

  for (const api of ["openai", "anthropic"] as const) {
    test(`regression: an OpenAI Agents session with parallel calls, continued by AgentSession, is a valid ${api} request`, async () => {
      const store = new MemoryStore();
      const items = new SessionTreeSession({
        store,
        sessionId: "s1",
        model: { provider: "openai", model: "gpt-4o" },
      });
      await items.addItems(parallelItems);
      const provider = new StrictProvider(api);
      const agent = await open(await StoreBackend.open(store, "local", "s1"), provider);
      await agent.prompt("Thanks");
      // Sent: the orphaned Paris result as user text between call_B and its tool result.
      assert.deepEqual(provider.rejected, []);
    });
  }

  test("regression: parallel calls stored by the OpenAI Agents adapter keep their results in the model's context", async () => {
    const manager = SessionManager.create(dir, join(dir, "agents-parallel"));
    const items = new SessionTreeSession({ manager, model: { provider: "openai", model: "gpt-4o" } });
    await items.addItems(parallelItems);
    const file = manager.getSessionFile() as string;
    // Stored: A(call_A), A(call_B), R(call_A), R(call_B). pi reads it no better: a synthetic
    // "No result provided" for call_A, then the real one orphaned (pis(file)).
    const context = await (await open(SessionManager.open(file), new StrictProvider("openai"))).context();
    const llm = toLlmMessages(context.messages).messages as unknown as Json[];
    assert.deepEqual(
      llm.filter((m) => m.role === "toolResult").map((m) => [m.toolCallId, m.content[0].text]),
      [
        ["call_A", "Paris: 18C"],
        ["call_B", "Rome: 25C"],
      ],
    );
  });
});
