import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Type } from "@sinclair/typebox";
import {
  type AgentEvent,
  AgentSession,
  defineTool,
  type Provider,
  type ProviderEvent,
  ScriptedProvider,
  StoreBackend,
  usageOf,
} from "../../src/agent/index.js";
import type { SessionEntry } from "../../src/core/entry.js";
import type { AssistantMessage } from "../../src/core/messages.js";
import { SessionManager } from "../../src/session/session-manager.js";
import { MemoryStore } from "../../src/store/memory/index.js";
import { testTools } from "./fixtures/tools.js";

const roles = (path: SessionEntry[]) => path.map((e) => (e.type === "message" ? e.message.role : e.type));

describe("AgentSession persistence", () => {
  test("messages are written on message_end, in order; deltas and progress are not", async () => {
    const manager = SessionManager.inMemory();
    const provider = new ScriptedProvider({ chunkSize: 3 });
    const agent = await AgentSession.open({ session: manager, providers: [provider], tools: testTools() });
    const events: string[] = [];
    agent.subscribe((e) => {
      events.push(e.type);
    });
    await agent.prompt("call slow {}");
    assert.deepEqual(roles(manager.getBranch()), ["user", "assistant", "toolResult", "assistant"]);
    assert.ok(events.filter((e) => e === "message_update").length > 3);
    assert.ok(events.includes("tool_call_progress"));
    assert.equal(events.filter((e) => e === "message_end").length, 4);
    assert.deepEqual(events.slice(0, 3), ["message_start", "message_end", "turn_start"]);
    // Exactly the four messages, nothing for deltas, progress, or UI state.
    assert.equal(manager.getEntries().length, 4);
  });

  test("a turn keeps writing on the branch it started on when the user navigates meanwhile (pi #6558)", async () => {
    const manager = SessionManager.inMemory();
    const first = await AgentSession.open({ session: manager, providers: [new ScriptedProvider()] });
    await first.prompt("first");
    const firstUser = manager.getBranch()[0] as SessionEntry;
    const navigate = defineTool({
      name: "navigate",
      description: "moves the leaf while the turn runs, as a UI would",
      parameters: Type.Object({}),
      execute: async () => {
        manager.branch(firstUser.id);
        return { content: "moved" };
      },
    });
    const agent = await AgentSession.open({
      session: manager,
      providers: [new ScriptedProvider()],
      tools: [navigate],
    });
    const turnStart = manager.getLeafId() as string;
    await agent.prompt("call navigate {}");
    // The user's leaf stays where they moved it…
    assert.equal(manager.getLeafId(), firstUser.id);
    // …and the whole turn hangs under the entry the turn started from.
    const turnEntries = manager.getEntries().slice(2);
    assert.deepEqual(roles(turnEntries), ["user", "assistant", "toolResult", "assistant"]);
    assert.equal(turnEntries[0]?.parentId, turnStart);
    for (let i = 1; i < turnEntries.length; i++)
      assert.equal(turnEntries[i]?.parentId, turnEntries[i - 1]?.id);
  });

  test("an abort mid-stream stores the partial reply as aborted; the next request leaves it out", async () => {
    const manager = SessionManager.inMemory();
    const bodies: string[] = [];
    const provider = new ScriptedProvider({
      chunkSize: 2,
      chunkDelayMs: 5,
      onRequest: (b) => bodies.push(b),
    });
    const agent = await AgentSession.open({ session: manager, providers: [provider] });
    const controller = new AbortController();
    const aborts: AgentEvent[] = [];
    agent.subscribe((e) => {
      if (e.type === "message_update" && e.message.content.length > 0) controller.abort();
      if (e.type === "abort") aborts.push(e);
    });
    const reply = await agent.prompt("a long question", { signal: controller.signal });
    assert.equal(reply?.stopReason, "aborted");
    assert.equal(aborts.length, 1);
    const stored = manager.getBranch().at(-1) as SessionEntry & { message: AssistantMessage };
    assert.equal(stored.message.stopReason, "aborted");
    assert.ok(stored.message.content.length > 0);
    await agent.prompt("again");
    const messages = (JSON.parse(bodies.at(-1) as string) as { messages: Array<{ role: string }> }).messages;
    assert.deepEqual(
      messages.map((m) => m.role),
      ["user", "user"],
    );
  });

  test("an abort during a tool call gives every remaining call an aborted result", async () => {
    const manager = SessionManager.inMemory();
    const controller = new AbortController();
    const stopper = defineTool({
      name: "stopper",
      description: "aborts the run",
      parameters: Type.Object({}),
      execute: async () => {
        controller.abort();
        return { content: "done anyway" };
      },
    });
    const agent = await AgentSession.open({
      session: manager,
      providers: [new ScriptedProvider()],
      tools: [stopper, ...testTools()],
    });
    await agent.prompt('call stopper {} and call echo {"text":"x"}', { signal: controller.signal });
    const results = manager
      .getBranch()
      .flatMap((e) => (e.type === "message" && e.message.role === "toolResult" ? [e.message] : []));
    assert.equal(results.length, 2);
    assert.ok(results.every((r) => r.isError === true));
    assert.equal(roles(manager.getBranch()).at(-1), "toolResult");
  });

  test("a provider error is stored with stopReason error and its message, and reported", async () => {
    const failing: Provider = {
      name: "failing",
      api: "test",
      requestBody: () => ({ body: "{}", repairs: [] }),
      async *stream(): AsyncGenerator<ProviderEvent> {
        yield { type: "text_delta", delta: "par" };
        yield { type: "error", message: "HTTP 500: overloaded", aborted: false, usage: usageOf(1, 1) };
      },
    };
    const manager = SessionManager.inMemory();
    const agent = await AgentSession.open({
      session: manager,
      providers: [failing],
      defaultModel: { provider: "failing", modelId: "m" },
    });
    const errors: string[] = [];
    agent.subscribe((e) => {
      if (e.type === "error") errors.push(e.message);
    });
    const reply = await agent.prompt("hi");
    assert.equal(reply?.stopReason, "error");
    assert.equal(reply?.errorMessage, "HTTP 500: overloaded");
    assert.deepEqual(errors, ["HTTP 500: overloaded"]);
    assert.deepEqual(roles(manager.getBranch()), ["user", "assistant"]);
  });
});

describe("AgentSession resume", () => {
  test("model, thinking level and extension state come back from the path", async () => {
    const manager = SessionManager.inMemory();
    const providers = [new ScriptedProvider()];
    const agent = await AgentSession.open({ session: manager, providers });
    await agent.setModel("scripted", "scripted-large");
    await agent.setThinkingLevel("high");
    await agent.setExtensionState("todo", { items: ["a", "b"] });
    await agent.prompt("hello");
    const reply = manager.getBranch().at(-1) as SessionEntry & { message: AssistantMessage };
    assert.equal(reply.message.model, "scripted-large");
    assert.equal(reply.message.content[0]?.type, "thinking");

    const resumed = await AgentSession.open({ session: manager, providers });
    assert.deepEqual(resumed.getModel(), { provider: "scripted", modelId: "scripted-large" });
    assert.equal(resumed.getThinkingLevel(), "high");
    assert.deepEqual(resumed.getExtensionState(), { todo: { items: ["a", "b"] } });
  });

  test("opening at a deliberate rewind to a tool call does not invent an interrupted result", async () => {
    const manager = SessionManager.inMemory();
    const agent = await AgentSession.open({
      session: manager,
      providers: [new ScriptedProvider()],
      tools: testTools(),
    });
    await agent.prompt('call echo {"text":"x"}');
    const call = manager.getBranch()[1] as SessionEntry;
    manager.branch(call.id);
    const count = manager.getEntries().length;
    await AgentSession.open({ session: manager, providers: [new ScriptedProvider()], tools: testTools() });
    assert.equal(manager.getEntries().length, count);
    assert.equal(manager.getLeafId(), call.id);
  });

  test("navigate back with a branch summary: the summary is pi's branch_summary entry, in context", async () => {
    const manager = SessionManager.inMemory();
    const agent = await AgentSession.open({ session: manager, providers: [new ScriptedProvider()] });
    await agent.prompt("one");
    const fork = manager.getLeafId() as string;
    await agent.prompt("explore something");
    await agent.navigate(fork, { summarize: true });
    const leaf = manager.getLeafEntry();
    assert.equal(leaf?.type, "branch_summary");
    assert.equal(leaf?.parentId, fork);
    assert.match((leaf as { summary: string }).summary, /explore something/);
    const context = await agent.context();
    assert.equal(context.messages.at(-1)?.role, "branchSummary");
  });

  test("works over a SessionStore (memory backend): same entries, resumable", async () => {
    const store = new MemoryStore();
    const session = await store.createSession("alice", { cwd: "/w" });
    const backend = await StoreBackend.open(store, "alice", session.id);
    const agent = await AgentSession.open({
      session: backend,
      providers: [new ScriptedProvider()],
      tools: testTools(),
    });
    await agent.prompt('call echo {"text":"store"}');
    const stored = await store.loadSession("alice", session.id);
    assert.deepEqual(roles(stored.entries), ["user", "assistant", "toolResult", "assistant"]);
    assert.equal(stored.summary.leafId, stored.entries.at(-1)?.id);

    const again = await AgentSession.open({
      session: await StoreBackend.open(store, "alice", session.id),
      providers: [new ScriptedProvider()],
    });
    const context = await again.context();
    assert.equal(context.messages.length, 4);
  });
});
