import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import { Type } from "@sinclair/typebox";
import type { SessionBackend } from "../../src/agent/backend/backend.js";
import { SessionManagerBackend } from "../../src/agent/backend/session-manager-backend.js";
import {
  type AgentEvent,
  AgentSession,
  defineTool,
  type Provider,
  type ProviderEvent,
  type ProviderRequest,
  ScriptedProvider,
  StoreBackend,
  usageOf,
} from "../../src/agent/index.js";
import { projectContext } from "../../src/core/context.js";
import type { SessionEntry } from "../../src/core/entry.js";
import type { AssistantMessage } from "../../src/core/messages.js";
import { IndexedBacking } from "../../src/session/backing/indexed-backing.js";
import { SessionManager } from "../../src/session/session-manager.js";
import type { SessionManagerLike } from "../../src/session/session-manager-like.js";
import { MemoryStore } from "../../src/store/memory/index.js";
import { CheckedBackend, countCalls, RecordingProvider, sameJson } from "./fixtures/context-check.js";
import { testTools } from "./fixtures/tools.js";

const dir = mkdtempSync(join(tmpdir(), "sessiontree-agent-session-"));
after(() => rmSync(dir, { recursive: true, force: true }));

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
    // Both stay in the tree; the leaf went back, so the failed prompt is not sent again.
    assert.deepEqual(
      manager.getEntries().map((e) => (e.type === "message" ? e.message.role : e.type)),
      ["user", "assistant"],
    );
    assert.equal(manager.getLeafId(), null);
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

/**
 * Projections expected in the scenario: at open, and after the compaction, the leaf move, the
 * branch summary (a leaf move too) and the change behind the agent's back; none after the
 * agent's own appends, however many model calls follow them.
 */
const EXPECTED_PROJECTIONS = 5;

interface Setup {
  backend: SessionBackend;
  /** Something a user does to the session behind the agent's back (appends, moves the leaf). */
  external?: () => void;
}

async function runScenario({ backend, external }: Setup): Promise<CheckedBackend> {
  const checked = new CheckedBackend(backend);
  const provider = new RecordingProvider();
  const agent = await AgentSession.open({ session: checked, providers: [provider], tools: testTools() });
  let requests = 0;
  agent.subscribe(async (event) => {
    if (event.type !== "request") return;
    requests++;
    // No navigation during a run: the turn's anchor is the leaf.
    const fresh = projectContext(await backend.path());
    const request = { ...(provider.last as ProviderRequest), messages: fresh.messages };
    assert.equal(
      event.body,
      provider.inner.requestBody(request).body,
      "request bytes as from a fresh projection",
    );
  });
  await agent.prompt("hello");
  await agent.prompt('call echo {"text":"x"} and call add {"a":1,"b":2}');
  await agent.setExtensionState("todo", { items: ["a"] });
  await agent.setThinkingLevel("high");
  await agent.setModel("scripted", "scripted-large");
  await agent.prompt("more");
  const fork = backend.leafId() as string;
  await agent.prompt("something to compact away ".repeat(40));
  assert.ok(await agent.compact({ keepRecentTokens: 10 }), "a compaction was written");
  await agent.prompt("after the compaction");
  await agent.navigate(fork);
  await agent.prompt("on another branch");
  await agent.navigate(fork, { summarize: true });
  await agent.prompt("after a branch summary");
  if (external) {
    external();
    await agent.prompt("after a change behind the agent's back");
  }
  await agent.setExtensionState("todo", { items: ["a", "b"] });
  await agent.prompt("last");
  assert.ok(requests >= 9, `${requests} requests`);
  assert.deepStrictEqual(sameJson(await agent.context()), sameJson(projectContext(await backend.path())));
  return checked;
}

const userMessage = (text: string) => ({ role: "user" as const, content: text, timestamp: 1 });

describe("the kept context equals a fresh projection, after appends, a compaction and leaf moves", () => {
  test("sessiontree's SessionManager in memory", async () => {
    const manager = SessionManager.inMemory();
    const projections = countCalls(manager, ["buildSessionContext", "buildSessionContextAt"]);
    const checked = await runScenario({
      backend: new SessionManagerBackend(manager),
      external: () => manager.appendMessage(userMessage("typed into the manager directly")),
    });
    assert.equal(projections.calls, EXPECTED_PROJECTIONS, `of ${checked.contexts} contexts`);
  });

  test("sessiontree's SessionManager over a large file resumed through its index", async () => {
    // The big message sits on an abandoned branch, which also holds a compaction: the leaf's
    // context needs a small share of the file, so the manager reads only those lines through the
    // index (a file with no compaction anywhere is read whole at once: its context is every line).
    const writer = SessionManager.create("/tmp/project", dir);
    const first = writer.appendMessage(userMessage("before the branch"));
    const big = writer.appendMessage(userMessage("x ".repeat(600_000)));
    writer.appendCompaction("an abandoned summary", big, 1000);
    writer.branch(first);
    writer.appendMessage(userMessage("the kept branch"));
    writer.close();
    const manager = SessionManager.open(writer.getSessionFile() as string, dir);
    const resumed = () => (manager as unknown as { backing: unknown }).backing instanceof IndexedBacking;
    assert.ok(resumed(), "opened through the index");
    const projections = countCalls(manager, ["buildSessionContext", "buildSessionContextAt"]);
    const checked = await runScenario({ backend: new SessionManagerBackend(manager) });
    assert.equal(projections.calls, EXPECTED_PROJECTIONS - 1, `of ${checked.contexts} contexts`);
    manager.close();
  });

  test("pi's own SessionManager (written through its appendX methods)", async () => {
    const manager = PiSessionManager.inMemory("/tmp/project");
    await runScenario({
      backend: new SessionManagerBackend(manager as unknown as SessionManagerLike),
      external: () => manager.appendMessage(userMessage("typed into pi's manager")),
    });
  });

  test("a SessionStore (StoreBackend)", async () => {
    const store = new MemoryStore();
    const session = await store.createSession("alice", { cwd: "/w" });
    const backend = await StoreBackend.open(store, "alice", session.id);
    const projections = countCalls((backend as unknown as { tree: object }).tree, ["getBranchSlots"]);
    const checked = await runScenario({ backend });
    assert.equal(projections.calls, EXPECTED_PROJECTIONS - 1, `of ${checked.contexts} contexts`);
    const stored = await store.loadSession("alice", session.id);
    const leafPath = await store.readBranch("alice", session.id, stored.summary.leafId);
    assert.deepStrictEqual(sameJson(await backend.context()), sameJson(projectContext(leafPath)));
  });
});

test("a context handed out by AgentSession.context() is the caller's: changing it changes nothing kept", async () => {
  const manager = SessionManager.inMemory();
  const agent = await AgentSession.open({ session: manager, providers: [new ScriptedProvider()] });
  await agent.prompt("hello");
  const first = await agent.context();
  first.messages.length = 0;
  first.extensionState.x = 1;
  const second = await agent.context();
  assert.equal(second.messages.length, 2);
  assert.deepEqual(second.extensionState, {});
  const path: SessionEntry[] = manager.getBranch();
  assert.deepStrictEqual(second, projectContext(path));
});
