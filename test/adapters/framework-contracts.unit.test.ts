/**
 * An adversarial pass over the three framework adapters against the real frameworks: each test
 * states the contract it holds the adapter to (the framework's own in-memory implementation run
 * side by side — MemorySession, MemorySaver, SqliteSaver for two processes on one database, the AI
 * SDK's own client — or what docs/adapters.md says) and compares. Fake models only: a scripted
 * `Model` for the Agents SDK, `MockLanguageModelV3` for the AI SDK, plain nodes for LangGraph.
 *
 * The tests marked [regression] check flows no other adapter test drives (reasoning items,
 * handoffs, approvals and RunState resumes, client-side tools and tool approvals in the AI SDK,
 * interrupts, subgraphs, forks, replays, crashes with pending writes, message removal and
 * DeltaChannel messages in LangGraph). The others hold the adapters to contracts the hunt found
 * broken and that are kept now (concurrent writers, payloads near the entry limit, deep values,
 * threads deleted by another saver, parallel tool calls read in pi); each says what it holds and
 * where it is kept.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  RemoveMessage,
  SystemMessage,
  ToolMessage,
} from "@langchain/core/messages";
import {
  Annotation,
  type BaseCheckpointSaver,
  Command,
  END,
  interrupt,
  MemorySaver,
  MessagesAnnotation,
  MessagesDeltaValue,
  REMOVE_ALL_MESSAGES,
  Send,
  START,
  StateGraph,
  StateSchema,
} from "@langchain/langgraph";
import { emptyCheckpoint, uuid6 } from "@langchain/langgraph-checkpoint";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import {
  Agent,
  type AgentInputItem,
  MemorySession,
  type Model,
  type ModelRequest,
  type ModelResponse,
  Runner,
  RunState,
  type Session,
  setTracingDisabled,
  tool,
  Usage,
} from "@openai/agents";
import {
  AbstractChat,
  tool as aiTool,
  convertToModelMessages,
  createIdGenerator,
  createUIMessageStream,
  createUIMessageStreamResponse,
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithToolCalls,
  stepCountIs,
  streamText,
  type UIMessage,
  validateUIMessages,
} from "ai";
import { MockLanguageModelV3, simulateReadableStream } from "ai/test";
import { z } from "zod";
// pi's own request preparation (not exported by pi-ai's package map): what runs on the context pi
// builds from a session before every provider request.
import { transformMessages } from "../../node_modules/@mariozechner/pi-ai/dist/providers/transform-messages.js";
import { type ChatStore, createChatStore } from "../../src/adapters/ai-sdk/index.js";
import { SessionTreeSaver } from "../../src/adapters/langgraph/index.js";
import { SessionTreeSession } from "../../src/adapters/openai-agents/index.js";
import { SessionManager } from "../../src/session/session-manager.js";
import { MemoryStore } from "../../src/store/memory/memory-store.js";
import { openStore } from "../../src/store/registry.js";
import type { SessionStore } from "../../src/store/store.js";
import { PlainState } from "./fixtures/chat-route.js";

// The SDK would export traces to OpenAI: never from a test.
setTracingDisabled(true);

const folder = mkdtempSync(join(tmpdir(), "sessiontree-framework-contracts-"));
after(() => rmSync(folder, { recursive: true, force: true }));

async function memoryStore(): Promise<MemoryStore> {
  const store = new MemoryStore();
  await store.init();
  return store;
}

async function sqliteStore(name: string): Promise<SessionStore> {
  const store = await openStore(`sqlite:${join(folder, name)}`);
  await store.init();
  return store;
}

/** A data URL of an image of `mib` MiB of base64: well under the documented 2 MB entry limit. */
function imageDataUrl(mib: number): string {
  return `data:image/png;base64,${Buffer.alloc(Math.floor((mib * 1024 * 1024 * 3) / 4)).toString("base64")}`;
}

/** What `p` settles to, as "ok" or the error's code (or message). */
async function outcome(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return "ok";
  } catch (error) {
    const e = error as { code?: string; message?: string };
    return e.code ?? e.message ?? String(error);
  }
}

// ---------------------------------------------------------------------------------------------
// OpenAI Agents SDK
// ---------------------------------------------------------------------------------------------

type Output = ModelResponse["output"];

/** A `Model` answering from a script, one response per call, recording each request's input. */
function scriptedModel(plan: Output[], requests: unknown[]): Model {
  let calls = 0;
  const next = (request: ModelRequest): ModelResponse => {
    requests.push(structuredClone({ input: request.input, instructions: request.systemInstructions }));
    const output = plan[calls++];
    if (!output) throw new Error("the scripted model has no more responses");
    return { usage: new Usage(), output: structuredClone(output), responseId: `resp_${calls}` };
  };
  return {
    async getResponse(request) {
      return next(request);
    },
    async *getStreamedResponse(request) {
      const response = next(request);
      for (const item of response.output as Array<{ type: string; content?: unknown }>) {
        if (item.type !== "message") continue;
        for (const part of item.content as Array<{ type: string; text?: string }>)
          if (part.type === "output_text") yield { type: "output_text_delta", delta: part.text ?? "" };
      }
      yield {
        type: "response_done",
        response: {
          id: response.responseId as string,
          usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
          output: response.output,
        },
      } as never;
    },
  };
}

/** A model that echoes the last input, for runs whose order is not scripted. */
const echoModel: Model = {
  async getResponse(request) {
    const last = (request.input as Array<{ content?: unknown }>).at(-1);
    return {
      usage: new Usage(),
      output: [
        {
          type: "message",
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", text: `echo ${String(last?.content)}` }],
        },
      ],
    } as ModelResponse;
  },
  getStreamedResponse(): AsyncIterable<never> {
    throw new Error("not streamed here");
  },
};

const assistantMessage = (id: string, text: string) =>
  ({
    id,
    type: "message",
    role: "assistant",
    status: "completed",
    content: [{ type: "output_text", text, annotations: [] }],
    providerData: { phase: "final" },
  }) as unknown as Output[number];
const reasoningItem = (id: string) =>
  ({
    id,
    type: "reasoning",
    content: [],
    rawContent: [{ type: "reasoning_text", text: "thinking it over" }],
    providerData: { encryptedContent: `encrypted-${id}` },
  }) as unknown as Output[number];
const functionCall = (callId: string, name: string, args: object) =>
  ({
    id: `fc_${callId}`,
    type: "function_call",
    callId,
    name,
    arguments: JSON.stringify(args),
    status: "completed",
    providerData: { origin: "scripted" },
  }) as unknown as Output[number];

const weatherTool = tool({
  name: "weather",
  description: "The weather in a city",
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => `sunny in ${city}`,
});

describe("OpenAI Agents: SessionTreeSession under the real Runner", () => {
  test("a scripted conversation (reasoning items, parallel tool calls, a handoff, streamed turns) restarted over SQLite before every turn gives the model exactly the requests MemorySession gives [regression]", async () => {
    const plan: Output[] = [
      [reasoningItem("rs_1"), assistantMessage("msg_1", "hello")],
      [
        reasoningItem("rs_2"),
        functionCall("c1", "weather", { city: "Oslo" }),
        functionCall("c2", "weather", { city: "Bergen" }),
      ],
      [assistantMessage("msg_3", "both sunny")],
      [functionCall("c3", "transfer_to_expert", {})],
      [reasoningItem("rs_5"), assistantMessage("msg_5", "expert here")],
      [assistantMessage("msg_6", "still the expert")],
      [functionCall("c7", "weather", { city: "Rome" })],
      [assistantMessage("msg_8", "sunny in Rome")],
    ];
    const turns: Array<[string, boolean]> = [
      ["hi", false],
      ["weather in Oslo and Bergen?", true],
      ["an expert please", false],
      ["more", true],
      ["and Rome?", false],
    ];
    async function script(sessionForTurn: () => Promise<Session>) {
      const requests: unknown[] = [];
      const model = scriptedModel(plan, requests);
      const runner = new Runner({ modelProvider: { getModel: () => model } });
      const expert = new Agent({ name: "expert", instructions: "expert", model: "m", tools: [weatherTool] });
      const helper = new Agent({
        name: "helper",
        instructions: "helper",
        model: "m",
        tools: [weatherTool],
        handoffs: [expert],
        modelSettings: { parallelToolCalls: true },
      });
      const outputs: unknown[] = [];
      let agent: Agent = helper;
      for (const [input, stream] of turns) {
        const session = await sessionForTurn();
        if (stream) {
          const result = await runner.run(agent, input, { session, stream: true });
          for await (const _event of result) {
            // drained: the run saves once its events are read
          }
          await result.completed;
          outputs.push(result.finalOutput);
          agent = result.lastAgent as Agent;
        } else {
          const result = await runner.run(agent, input, { session });
          outputs.push(result.finalOutput);
          agent = result.lastAgent as Agent;
        }
      }
      return { outputs, requests, items: await (await sessionForTurn()).getItems() };
    }
    const reference = new MemorySession();
    const expected = await script(async () => reference);
    let store: SessionStore | undefined;
    const ours = await script(async () => {
      await store?.close();
      store = await sqliteStore("agents-script.db");
      return new SessionTreeSession({ store, sessionId: "script" });
    });
    await store?.close();
    assert.deepEqual(expected.outputs, [
      "hello",
      "both sunny",
      "expert here",
      "still the expert",
      "sunny in Rome",
    ]);
    assert.deepEqual(ours.outputs, expected.outputs);
    assert.deepEqual(ours.requests, expected.requests, "the model got other input items");
    assert.deepEqual(ours.items, expected.items);
  });

  test("a tool approval: interrupted, resumed from a serialized RunState (approved, then rejected, streamed) as with MemorySession [regression]", async () => {
    const plan: Output[] = [
      [functionCall("c1", "pay", { amount: 5 }), functionCall("c2", "lookup", { q: "x" })],
      [assistantMessage("m2", "paid")],
      [functionCall("c3", "pay", { amount: 9 })],
      [assistantMessage("m4", "not paid")],
    ];
    async function script(session: () => Session) {
      const requests: unknown[] = [];
      const model = scriptedModel(plan, requests);
      const runner = new Runner({ modelProvider: { getModel: () => model } });
      const pay = tool({
        name: "pay",
        description: "pay",
        parameters: z.object({ amount: z.number() }),
        needsApproval: true,
        execute: async ({ amount }) => `paid ${amount}`,
      });
      const lookup = tool({
        name: "lookup",
        description: "lookup",
        parameters: z.object({ q: z.string() }),
        execute: async ({ q }) => `found ${q}`,
      });
      const agent = new Agent({ name: "a", instructions: "i", model: "m", tools: [pay, lookup] });
      const first = await runner.run(agent, "pay 5", { session: session() });
      const pending = await session().getItems();
      const state = await RunState.fromString(agent, first.state.toString());
      for (const call of state.getInterruptions()) state.approve(call);
      const approved = await runner.run(agent, state, { session: session() });
      const second = await runner.run(agent, "pay 9", { session: session(), stream: true });
      for await (const _event of second) {
        // drained
      }
      await second.completed;
      const state2 = await RunState.fromString(agent, second.state.toString());
      for (const call of state2.getInterruptions()) state2.reject(call);
      const rejected = await runner.run(agent, state2, { session: session(), stream: true });
      for await (const _event of rejected) {
        // drained
      }
      await rejected.completed;
      return {
        pending,
        outputs: [approved.finalOutput, rejected.finalOutput],
        requests,
        items: await session().getItems(),
      };
    }
    const reference = new MemorySession();
    const expected = await script(() => reference);
    const store = await memoryStore();
    const ours = await script(() => new SessionTreeSession({ store, sessionId: "approval" }));
    assert.deepEqual(expected.outputs, ["paid", "not paid"]);
    assert.deepEqual(ours, expected);
  });

  // docs/adapters.md: "two processes writing one session never fork it". A session's writes through
  // one SessionTreeSession wait for each other (History.update), so each is planned on the one
  // before; the first one creates the session.
  test("two runs at once on a new session keep both turns, as MemorySession does", async () => {
    const runner = new Runner({ modelProvider: { getModel: () => echoModel } });
    const agent = new Agent({ name: "a", instructions: "i", model: "m" });
    const both = async (session: Session) => {
      await Promise.all(["first", "second"].map((input) => runner.run(agent, input, { session })));
      return (await session.getItems()).map((item) => (item as { content: unknown }).content).sort();
    };
    const expected = await both(new MemorySession());
    assert.equal(expected.length, 4);
    const store = await memoryStore();
    const ours = await both(new SessionTreeSession({ store, sessionId: "new-session" }));
    const { entries } = await store.loadSession("local", "new-session");
    assert.equal(entries.length, 4, "both turns were written");
    assert.deepEqual(ours, expected, "a turn is on a branch getItems no longer reads");
  });

  // The same across processes (here: sessions on their own handles, which share no queue). A write
  // planned on a session not created yet names the revision its creation gives it (1,
  // `plannedRevision`), so only the first of them lands as planned; the others conflict and are
  // planned again on what it wrote, instead of each hanging a root of its own.
  test("writers on their own handles (as processes) write a new session at once: one path holds every write", async () => {
    const store = await memoryStore();
    const writers = ["a", "b", "c", "d"].map(
      (name) => [name, new SessionTreeSession({ store, sessionId: "new-shared" })] as const,
    );
    await Promise.all(
      writers.map(([name, session]) => session.addItems([{ role: "user", content: name } as AgentInputItem])),
    );
    const reader = new SessionTreeSession({ store, sessionId: "new-shared" });
    const said = (await reader.getItems()).map((item) => (item as { content: unknown }).content);
    assert.deepEqual([...said].sort(), ["a", "b", "c", "d"]);
    assert.equal((await reader.listBranches()).length, 1, "the session forked");
  });

  // The same on a session with history, with more runs at once: queued in the process, none of
  // them races another (a handful of retries used to end in `conflict`, the run's turn unsaved).
  test("eight runs at once on a session with history all complete and are all saved, as with MemorySession", async () => {
    const runner = new Runner({ modelProvider: { getModel: () => echoModel } });
    const agent = new Agent({ name: "a", instructions: "i", model: "m" });
    const eight = async (session: Session) => {
      await runner.run(agent, "start", { session });
      const settled = await Promise.all(
        Array.from({ length: 8 }, (_, i) => outcome(runner.run(agent, `q${i}`, { session }))),
      );
      return { settled, items: (await session.getItems()).length };
    };
    const expected = await eight(new MemorySession());
    assert.deepEqual(expected, { settled: Array(8).fill("ok"), items: 18 });
    const store = await memoryStore();
    assert.deepEqual(await eight(new SessionTreeSession({ store, sessionId: "busy" })), expected);
  });

  // Across processes the races are real: each lost one is another writer's write landing, so a
  // writer is planned again (after a short random pause) for as long as others get through, not a
  // fixed number of times (retry.ts).
  test("eight writers on their own handles at once, on a session with history: every write lands, on one path", async () => {
    const store = await memoryStore();
    await new SessionTreeSession({ store, sessionId: "crowd" }).addItems([
      { role: "user", content: "start" },
    ]);
    const settled = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        outcome(
          new SessionTreeSession({ store, sessionId: "crowd" }).addItems([
            { role: "user", content: `w${i}` } as AgentInputItem,
          ]),
        ),
      ),
    );
    assert.deepEqual(settled, Array(8).fill("ok"));
    const reader = new SessionTreeSession({ store, sessionId: "crowd" });
    assert.equal((await reader.getItems()).length, 9);
    assert.equal((await reader.listBranches()).length, 1, "the session forked");
  });

  // Over a SessionManager, `addItems` reads the leaf, awaits, then appends under what it read. The
  // calls of one SessionTreeSession wait for each other; those of two over one manager (which share
  // no queue) find the leaf moved since their read, and that is a conflict, planned again
  // (ManagerHistory.requireLeaf), never a rewind to a stale parent that forks the session.
  test("over a SessionManager, addItems calls at once keep every item on the path", async () => {
    const manager = SessionManager.inMemory("/project");
    const session = new SessionTreeSession({ manager });
    const other = new SessionTreeSession({ manager });
    await session.addItems([{ role: "user", content: "first" }]);
    await Promise.all(
      [session, other, session, other].map((writer, i) =>
        writer.addItems([{ role: "user", content: `w${i}` } as AgentInputItem]),
      ),
    );
    assert.equal(manager.getEntries().length, 5);
    assert.equal((await session.getItems()).length, 5, "items were left on abandoned branches");
  });

  // The SDK's parallel tool calls ([call c1, call c2, result c1, result c2]) are one assistant
  // message with both calls, then the results: pi answers each call with its own result. With an
  // entry per call, pi's request preparation answered c1 with a fabricated "No result provided"
  // error and left c1's real result after c2's call, which Anthropic's API refuses.
  test("parallel tool calls read back in pi as answered calls: pi invents no 'No result provided' result", async () => {
    const store = await memoryStore();
    const session = new SessionTreeSession({
      store,
      sessionId: "parallel",
      model: { provider: "openai", model: "gpt-4.1", api: "openai-responses" },
    });
    const plan: Output[] = [
      [functionCall("c1", "weather", { city: "Oslo" }), functionCall("c2", "weather", { city: "Bergen" })],
      [assistantMessage("m2", "both sunny")],
    ];
    const model = scriptedModel(plan, []);
    const runner = new Runner({ modelProvider: { getModel: () => model } });
    const agent = new Agent({
      name: "a",
      instructions: "i",
      model: "m",
      tools: [weatherTool],
      modelSettings: { parallelToolCalls: true },
    });
    await runner.run(agent, "weather in Oslo and Bergen?", { session });
    const file = join(folder, "parallel.jsonl");
    writeFileSync(file, await store.exportJsonl("local", "parallel"));
    const context = PiSessionManager.open(file, folder).buildSessionContext();
    const sent = transformMessages(
      context.messages as never,
      {
        id: "gpt-4.1",
        provider: "openai",
        api: "openai-responses",
        input: ["text", "image"],
      } as never,
    ) as Array<{ role: string; toolCallId?: string; content: unknown }>;
    const results = sent.filter((m) => m.role === "toolResult");
    assert.deepEqual(
      results.map((m) => [m.toolCallId, (m.content as Array<{ text?: string }>)[0]?.text]),
      [
        ["c1", "sunny in Oslo"],
        ["c2", "sunny in Bergen"],
      ],
      "pi answers the calls otherwise",
    );
  });

  // docs/adapters.md: an entry is at most 2 MB. A user item holding a 1.2 MiB image, or a function
  // output of 1.1 MiB of text, is one entry holding the payload once: pi's image or text block, and
  // the item's JSON text in `origin` with that payload cut out (record-text.ts; stored twice, as
  // they were, anything over about 1 MiB was `entry_too_large`). Read back, the items are exact.
  test("a 1.2 MiB image in a user item, and a 1.1 MiB function output, are stored once and read back exactly", async () => {
    const store = await memoryStore();
    const session = new SessionTreeSession({ store, sessionId: "large" });
    const image = {
      role: "user",
      content: [{ type: "input_image", image: imageDataUrl(1.2) }],
    } as AgentInputItem;
    const output = {
      type: "function_call_result",
      callId: "c1",
      name: "fetch",
      status: "completed",
      output: "x".repeat(1.1 * 1024 * 1024),
    } as AgentInputItem;
    assert.deepEqual(
      [await outcome(session.addItems([image])), await outcome(session.addItems([output]))],
      ["ok", "ok"],
    );
    const restarted = new SessionTreeSession({ store, sessionId: "large" });
    assert.deepEqual(await restarted.getItems(), [image, output]);
    const { entries } = await store.loadSession("local", "large");
    for (const entry of entries) assert.ok(JSON.stringify(entry).length < 1.3 * 1024 * 1024, "stored twice");
  });

  // Several payloads in one item, each cut from the item's text and put back in place: two images
  // and a long text in a user item; a function output of parts, one of which pi shows as its JSON
  // (held raw in the item's text, not as a string). A payload pi shows otherwise stays in both.
  test("several large payloads in one item, one held as JSON, are each stored once and read back exactly", async () => {
    const store = await memoryStore();
    const session = new SessionTreeSession({ store, sessionId: "several" });
    const long = `"quoted", escaped \\ and\nnewlines ${"é✓".repeat(40_000)}`;
    const user = {
      role: "user",
      content: [
        { type: "input_image", image: imageDataUrl(0.6) },
        { type: "input_text", text: long },
        { type: "input_image", image: imageDataUrl(0.5) },
      ],
    } as AgentInputItem;
    const output = {
      type: "function_call_result",
      callId: "c1",
      name: "fetch",
      status: "completed",
      output: [
        { type: "input_text", text: "y".repeat(300_000) },
        { type: "input_file", file: { id: "f".repeat(400_000) }, filename: "doc.bin" },
      ],
    } as unknown as AgentInputItem;
    await session.addItems([user, output]);
    assert.deepEqual(await new SessionTreeSession({ store, sessionId: "several" }).getItems(), [
      user,
      output,
    ]);
    const { entries } = await store.loadSession("local", "several");
    assert.equal(entries.length, 2);
    const [userSize = 0, outputSize = 0] = entries.map((entry) => JSON.stringify(entry).length);
    assert.ok(userSize < JSON.stringify(user).length * 1.05, `the user entry holds ${userSize} characters`);
    assert.ok(
      outputSize < JSON.stringify(output).length * 1.05,
      `the output entry holds ${outputSize} characters`,
    );
  });

  // Entries written before items were kept as text hold the item as an object: still read.
  test("an item kept as an object in origin (as earlier versions wrote it) reads back as that item", async () => {
    const store = await memoryStore();
    await store.createSession("local", { id: "older" });
    const item = { role: "user", content: [{ type: "input_text", text: "from before" }] };
    await store.appendEntries("local", "older", [
      {
        type: "message",
        id: "e1",
        parentId: null,
        timestamp: new Date().toISOString(),
        message: {
          role: "user",
          content: [{ type: "text", text: "from before" }],
          timestamp: 1,
          origin: { framework: "openai-agents", item },
        },
      },
    ]);
    const session = new SessionTreeSession({ store, sessionId: "older" });
    await session.addItems([{ role: "user", content: "after" }]);
    assert.deepEqual(await session.getItems(), [item, { role: "user", content: "after" }]);
  });

  // A session another writer deletes is started afresh by the next write, as MemorySession's
  // clear: a write planned on it before it went is a conflict (StoreHistory.unlessDeleted),
  // planned again on the empty session. One in the trash (soft-deleted, restorable) is not ours to
  // start again: the write answers session_not_found at once, and the session is left as it was.
  test("a session purged under a write is started again by it; one in the trash is not written", async () => {
    const store = await memoryStore();
    const session = new SessionTreeSession({ store, sessionId: "purged" });
    await session.addItems([{ role: "user", content: "before" }]);
    const append = store.appendEntries.bind(store);
    let purged = false;
    store.appendEntries = async (...args) => {
      if (!purged) {
        purged = true;
        await store.purgeSession("local", "purged"); // between this write's read and its append
      }
      return append(...args);
    };
    await session.addItems([{ role: "user", content: "after" }]);
    assert.ok(purged);
    assert.deepEqual(await session.getItems(), [{ role: "user", content: "after" }]);
    await store.deleteSession("local", "purged");
    assert.equal(await outcome(session.addItems([{ role: "user", content: "x" }])), "session_not_found");
    await store.restoreSession("local", "purged");
    assert.deepEqual(await session.getItems(), [{ role: "user", content: "after" }]);
  });
});

// ---------------------------------------------------------------------------------------------
// AI SDK
// ---------------------------------------------------------------------------------------------

const usageV3 = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};
const finishPart = (unified: string) => ({
  type: "finish",
  finishReason: { unified, raw: unified },
  usage: usageV3,
});
const textParts = (id: string, text: string) => [
  { type: "text-start", id },
  { type: "text-delta", id, delta: text },
  { type: "text-end", id },
];

/** The AI SDK's own chat client (what `useChat` runs), sending tool outputs back automatically. */
class HuntChat extends AbstractChat<UIMessage> {
  constructor(id: string, route: (req: Request) => Promise<Response>) {
    super({
      id,
      state: new PlainState([]),
      transport: new DefaultChatTransport<UIMessage>({
        api: "http://chat.test/api/chat",
        fetch: async (input, init) => route(new Request(input as string, init)),
      }),
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithToolCalls,
    });
  }
}

const json = <T>(value: T): T => JSON.parse(JSON.stringify(value));

describe("AI SDK: createChatStore under streamText and the AI SDK's chat client", () => {
  test("reasoning, parallel server tools, sources, files, data parts, a client-side tool, a tool approval and a regenerate: loadChat gives back what onFinish saved, validateUIMessages takes it, and the model gets the same messages [regression]", async () => {
    const steps: unknown[][] = [];
    const model = new MockLanguageModelV3({
      doStream: async () => {
        const chunks = steps.shift();
        if (!chunks) throw new Error("the scripted model has no more steps");
        return {
          stream: simulateReadableStream({
            chunks: [{ type: "stream-start", warnings: [] }, ...chunks] as never[],
          }),
        };
      },
    });
    const tools = {
      weather: aiTool({
        description: "weather",
        inputSchema: z.object({ city: z.string() }),
        execute: async ({ city }) => ({
          forecast: `sunny in ${city}`,
          detail: { hours: [1, { rain: null }] },
        }),
      }),
      ask: aiTool({ description: "answered by the client", inputSchema: z.object({ q: z.string() }) }),
      pay: aiTool({
        description: "needs approval",
        inputSchema: z.object({ amount: z.number() }),
        needsApproval: true,
        execute: async ({ amount }) => `paid ${amount}`,
      }),
    };
    const store = await memoryStore();
    const chats: ChatStore = createChatStore({ store, model: { provider: "openai", model: "gpt-4.1" } });
    const saved: UIMessage[][] = [];
    const route = async (req: Request) => {
      const { id, messages } = (await req.json()) as { id: string; messages: UIMessage[] };
      const stream = createUIMessageStream({
        originalMessages: messages,
        generateId: createIdGenerator({ prefix: "msg", size: 16 }),
        execute: async ({ writer }) => {
          writer.write({ type: "data-status", id: "status", data: { seen: messages.length } } as never);
          const result = streamText({
            model,
            messages: await convertToModelMessages(messages),
            tools,
            stopWhen: stepCountIs(5),
          });
          writer.merge(result.toUIMessageStream({ sendReasoning: true, sendSources: true }));
        },
        onFinish: async ({ messages: all, isAborted }) => {
          saved.push(structuredClone(all));
          await chats.saveChat({ chatId: id, messages: all, isAborted });
        },
      });
      return createUIMessageStreamResponse({ stream });
    };
    const chat = new HuntChat("hunt-chat", route);
    const settle = async () => {
      for (let i = 0; i < 100 && (chat.status !== "ready" || steps.length > 0); i++)
        await new Promise((resolve) => setTimeout(resolve, 10));
      await new Promise((resolve) => setTimeout(resolve, 20));
    };
    const checks: string[] = [];
    const check = async (label: string) => {
      await settle();
      const loaded = await chats.loadChat("hunt-chat");
      const last = json(saved.at(-1) as UIMessage[]);
      assert.deepEqual(loaded, last, `${label}: loadChat gives what onFinish saved`);
      assert.deepEqual(loaded, json(chat.messages), `${label}: and what the client shows`);
      await validateUIMessages({ messages: loaded, tools: tools as never });
      assert.deepEqual(
        json(await convertToModelMessages(loaded, { tools })),
        json(await convertToModelMessages(last, { tools })),
        `${label}: the model gets the same messages`,
      );
      checks.push(label);
    };

    steps.push(
      [
        { type: "reasoning-start", id: "r1" },
        { type: "reasoning-delta", id: "r1", delta: "thinking" },
        { type: "reasoning-end", id: "r1", providerMetadata: { openai: { itemId: "rs_1" } } },
        ...textParts("t1", "Let me check."),
        { type: "tool-call", toolCallId: "call_1", toolName: "weather", input: '{"city":"Oslo"}' },
        { type: "tool-call", toolCallId: "call_2", toolName: "weather", input: '{"city":"Bergen"}' },
        finishPart("tool-calls"),
      ],
      [
        { type: "source", sourceType: "url", id: "s1", url: "https://example.com/w", title: "Weather" },
        { type: "file", mediaType: "image/png", data: "iVBORw0KGgo=" },
        ...textParts("t2", "Sunny in both."),
        finishPart("stop"),
      ],
    );
    await chat.sendMessage({
      text: "weather?",
      files: [
        {
          type: "file",
          mediaType: "image/png",
          url: "data:image/png;base64,iVBORw0KGgo=",
          filename: "x.png",
        },
      ],
    });
    await check("server tools");

    steps.push([
      { type: "tool-call", toolCallId: "call_3", toolName: "ask", input: '{"q":"which city?"}' },
      finishPart("tool-calls"),
    ]);
    await chat.sendMessage({ text: "ask me" });
    await check("client tool pending");
    steps.push([...textParts("t3", "Thanks."), finishPart("stop")]);
    await chat.addToolOutput({ tool: "ask", toolCallId: "call_3", output: "Oslo" } as never);
    await check("client tool answered");
    const continued = await chats.listAlternatives({
      chatId: "hunt-chat",
      messageId: (chat.messages.at(-1) as UIMessage).id,
    });
    assert.equal(continued.versions.length, 1, "a continued answer is one version");

    steps.push([
      { type: "tool-call", toolCallId: "call_4", toolName: "pay", input: '{"amount":5}' },
      finishPart("tool-calls"),
    ]);
    await chat.sendMessage({ text: "pay 5" });
    await check("approval requested");
    const payPart = (chat.messages.at(-1) as UIMessage).parts.find((p) => p.type === "tool-pay") as {
      approval: { id: string };
    };
    steps.push([...textParts("t5", "Paid."), finishPart("stop")]);
    await chat.addToolApprovalResponse({ id: payPart.approval.id, approved: true });
    await settle();
    if (steps.length > 0) await chat.sendMessage();
    await check("approved");

    steps.push([...textParts("t6", "Paid (again)."), finishPart("stop")]);
    await chat.regenerate();
    await check("regenerated");
    const answers = await chats.listAlternatives({
      chatId: "hunt-chat",
      messageId: (chat.messages.at(-1) as UIMessage).id,
    });
    assert.deepEqual([answers.index, answers.versions.length], [1, 2]);
    assert.deepEqual(checks.length, 6);
  });

  // docs/adapters.md: "saving the same list twice writes nothing (idempotent; a retry is safe)".
  // Two saves at once of a chat not stored yet (a double submit, two tabs, a save at the start of
  // the route and one in onFinish): through one chat store they wait for each other; through two
  // (two processes) the later one's plan names a new session's revision, conflicts, and is planned
  // again on the prompt the first stored. Either way the prompt is stored once.
  test("two saves at once of a new chat store the prompt once, through one chat store or two", async () => {
    const store = await memoryStore();
    const one = createChatStore({ store });
    const prompt: UIMessage = { id: "u1", role: "user", parts: [{ type: "text", text: "hi" }] };
    const answer: UIMessage = { id: "a1", role: "assistant", parts: [{ type: "text", text: "hello" }] };
    for (const [chatId, first, second] of [
      ["race", one, one],
      ["race-two", createChatStore({ store }), createChatStore({ store })],
    ] as const) {
      await Promise.all([
        first.saveChat({ chatId, messages: [prompt] }),
        second.saveChat({ chatId, messages: [prompt, answer] }),
      ]);
      const versions = await one.listAlternatives({ chatId, messageId: "u1" });
      assert.equal(
        versions.versions.length,
        1,
        `${chatId}: the same prompt is listed as a version of itself`,
      );
      assert.equal((await store.loadSession("local", chatId)).entries.length, 2);
      assert.deepEqual(await one.loadChat(chatId), [prompt, answer]);
    }
  });

  // useChat sends attached files as data URLs. A 1.2 MiB image (under the 2 MB entry limit) is held
  // once by the user entry: pi's image block, and the UIMessage's JSON text in `origin` with the
  // URL cut out (record-text.ts; held twice, the save failed with entry_too_large).
  test("a user message with a 1.2 MiB image file part is saved, and loaded back exactly", async () => {
    const store = await memoryStore();
    const chats = createChatStore({ store });
    const message: UIMessage = {
      id: "u1",
      role: "user",
      parts: [
        { type: "file", mediaType: "image/png", url: imageDataUrl(1.2), filename: "photo.png" },
        { type: "text", text: "what is this?" },
      ],
    };
    assert.equal(await outcome(chats.saveChat({ chatId: "photo", messages: [message] })), "ok");
    assert.deepEqual(await createChatStore({ store }).loadChat("photo"), [message]);
    // Saved again as loaded: the same message, nothing written.
    await chats.saveChat({ chatId: "photo", messages: await chats.loadChat("photo") });
    assert.equal((await store.loadSession("local", "photo")).entries.length, 1);
  });

  // The UIMessage is kept in `origin` as JSON text (as the LangGraph adapter keeps its values), so
  // its nesting does not count against the store's 64 levels: a tool output 60 levels deep (any
  // JSON the AI SDK and its guide's JSON-file store take) is saved (as an object, it was
  // entry_too_deep).
  test("an assistant message whose tool output is nested 60 levels deep is saved", async () => {
    const store = await memoryStore();
    const chats = createChatStore({ store });
    let deep: unknown = "leaf";
    for (let i = 0; i < 60; i++) deep = { inner: deep };
    const messages: UIMessage[] = [
      { id: "u1", role: "user", parts: [{ type: "text", text: "the tree?" }] },
      {
        id: "a1",
        role: "assistant",
        parts: [
          { type: "step-start" },
          {
            type: "tool-tree",
            toolCallId: "c1",
            state: "output-available",
            input: {},
            output: deep,
          } as never,
        ],
      },
    ];
    assert.equal(await outcome(chats.saveChat({ chatId: "deep", messages })), "ok");
    assert.deepEqual(await chats.loadChat("deep"), messages);
  });

  // Entries written before messages were kept as text hold the UIMessage as an object: still read,
  // and a save of the chat as loaded writes nothing new.
  test("a UIMessage kept as an object in origin (as earlier versions wrote it) loads, and is not new", async () => {
    const store = await memoryStore();
    await store.createSession("local", { id: "older" });
    const message: UIMessage = { id: "u1", role: "user", parts: [{ type: "text", text: "from before" }] };
    await store.appendEntries("local", "older", [
      {
        type: "message",
        id: "e1",
        parentId: null,
        timestamp: new Date().toISOString(),
        message: {
          role: "user",
          content: "from before",
          timestamp: 1,
          origin: { framework: "ai-sdk", message },
        },
      },
    ]);
    const chats = createChatStore({ store });
    assert.deepEqual(await chats.loadChat("older"), [message]);
    const answer: UIMessage = { id: "a1", role: "assistant", parts: [{ type: "text", text: "now" }] };
    await chats.saveChat({ chatId: "older", messages: [message, answer] });
    assert.deepEqual(await chats.loadChat("older"), [message, answer]);
    assert.equal((await store.loadSession("local", "older")).entries.length, 2);
  });
});

// ---------------------------------------------------------------------------------------------
// LangGraph
// ---------------------------------------------------------------------------------------------

/** Ids (UUIDs, interrupt hashes) numbered by first appearance, keys sorted: two runs compare. */
function normalised(value: unknown): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort);
    if (v === null || typeof v !== "object") return v;
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sort((v as Record<string, unknown>)[k])]),
    );
  };
  const ids = new Map<string, string>();
  const text = JSON.stringify(sort(JSON.parse(JSON.stringify(value))), (key, v) =>
    key === "ts" || key === "createdAt" ? "<time>" : v,
  );
  return text.replace(
    /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\b[0-9a-f]{32}\b/g,
    (id) => {
      if (!ids.has(id)) ids.set(id, `<id${ids.size}>`);
      return ids.get(id) as string;
    },
  );
}

const contents = (messages: BaseMessage[] | undefined) =>
  (messages ?? []).map((m) => `${m.getType()}:${String(m.content)}`);

const meta = { source: "loop" as const, step: 0, parents: {} };

describe("LangGraph: SessionTreeSaver under a real StateGraph", () => {
  test("interrupt() + Command({resume}), an interrupt inside a subgraph, updateState forking an old checkpoint, a replay: state and history as MemorySaver's [regression]", async () => {
    const State = Annotation.Root({
      ...MessagesAnnotation.spec,
      count: Annotation<number>({ reducer: (a, b) => a + b, default: () => 0 }),
      notes: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
    });
    const build = (saver: BaseCheckpointSaver) => {
      const sub = new StateGraph(State)
        .addNode("subWork", async (s) => ({ notes: [`sub saw ${s.messages.length}`], count: 1 }))
        .addNode("subAsk", async () => ({ notes: [`sub answer ${interrupt({ q: "sub approve?" })}`] }))
        .addEdge(START, "subWork")
        .addEdge("subWork", "subAsk")
        .addEdge("subAsk", END)
        .compile();
      return new StateGraph(State)
        .addNode("agent", async (s) => ({
          messages: [
            new AIMessage({ content: `answer to ${s.messages.length}`, id: `ai-${s.messages.length}` }),
          ],
          count: 1,
        }))
        .addNode("ask", async (s) => ({
          notes: [`approved ${interrupt({ q: "approve?", n: s.messages.length })}`],
        }))
        .addNode("sub", sub)
        .addEdge(START, "agent")
        .addEdge("agent", "ask")
        .addEdge("ask", "sub")
        .addEdge("sub", END)
        .compile({ checkpointer: saver });
    };
    async function script(saver: BaseCheckpointSaver) {
      const graph = build(saver);
      const config = { configurable: { thread_id: "interrupts" } };
      const seen: unknown[] = [];
      const snap = async () => {
        const state = await graph.getState(config, { subgraphs: true });
        const history: unknown[] = [];
        for await (const h of graph.getStateHistory(config))
          history.push({
            values: h.values,
            next: h.next,
            metadata: h.metadata,
            config: h.config,
            parent: h.parentConfig,
            tasks: h.tasks,
          });
        seen.push({ state, history });
      };
      seen.push(await graph.invoke({ messages: [new HumanMessage({ content: "hi", id: "h1" })] }, config));
      await snap();
      seen.push(await graph.invoke(new Command({ resume: "yes" }), config));
      await snap();
      seen.push(await graph.invoke(new Command({ resume: "sub-yes" }), config));
      await snap();
      const all = [];
      for await (const h of graph.getStateHistory(config)) all.push(h);
      const askedAt = all.find((h) => h.next.includes("ask"));
      const forked = await graph.updateState(askedAt?.config as never, { notes: ["forked"] });
      seen.push(forked);
      await snap();
      seen.push(await graph.invoke(null, forked));
      seen.push(await graph.invoke(new Command({ resume: "again" }), config));
      await snap();
      seen.push(await graph.invoke(null, all.at(-1)?.config));
      await snap();
      return seen;
    }
    const expected = await script(new MemorySaver());
    const ours = await script(new SessionTreeSaver({ store: await memoryStore() }));
    for (const said of ["approved yes", "sub answer sub-yes", "forked", "approved again", "sub approve?"])
      assert.ok(normalised(expected).includes(said), `the reference run went through "${said}"`);
    assert.equal(normalised(ours), normalised(expected));
  });

  test("a superstep where one node crashed keeps the other's pending writes across a restart; interrupt and Send fan-out after it, as MemorySaver [regression]", async () => {
    const State = Annotation.Root({
      ...MessagesAnnotation.spec,
      log: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
    });
    async function script(open: () => BaseCheckpointSaver) {
      const runs: Record<string, number> = {};
      const ran = (node: string) => {
        runs[node] = (runs[node] ?? 0) + 1;
      };
      let crash = true;
      const build = (saver: BaseCheckpointSaver) =>
        new StateGraph(State)
          .addNode("a", async () => {
            ran("a");
            return { log: ["a"], messages: [new AIMessage({ content: "from a", id: "ma" })] };
          })
          .addNode("b", async () => {
            ran("b");
            if (crash) throw new Error("b crashed");
            return { log: ["b"] };
          })
          .addNode("c", async () => {
            ran("c");
            return { log: [`c:${interrupt("ok?")}`] };
          })
          .addNode("fan", async () => ({ log: ["fan"] }))
          .addNode("worker", async (input: { i: number }) => {
            ran("worker");
            return { log: [`w${input.i}`] };
          })
          .addEdge(START, "a")
          .addEdge(START, "b")
          .addEdge("a", "c")
          .addEdge("b", "c")
          .addEdge("c", "fan")
          .addConditionalEdges("fan", () => [0, 1, 2].map((i) => new Send("worker", { i })))
          .addEdge("worker", END)
          .compile({ checkpointer: saver });
      const config = { configurable: { thread_id: "crash" } };
      const seen: unknown[] = [];
      seen.push(
        await outcome(
          build(open()).invoke({ messages: [new HumanMessage({ content: "go", id: "h" })] }, config),
        ),
      );
      const state = await build(open()).getState(config);
      seen.push(
        state.next,
        state.tasks.map((t) => [t.name, t.error !== undefined]),
      );
      crash = false;
      seen.push(await build(open()).invoke(null, config));
      seen.push({ ...runs });
      seen.push(await build(open()).invoke(new Command({ resume: "yes" }), config));
      seen.push({ ...runs });
      const history: unknown[] = [];
      for await (const h of build(open()).getStateHistory(config))
        history.push([h.metadata?.step, h.metadata?.source, h.next, h.values.log]);
      seen.push(history);
      return seen;
    }
    const reference = new MemorySaver();
    const expected = await script(() => reference);
    const store = await memoryStore();
    const ours = await script(() => new SessionTreeSaver({ store }));
    assert.equal(normalised(ours), normalised(expected));
    assert.deepEqual(
      expected[4],
      { a: 1, b: 2, c: 1 },
      "the reference ran a once, b again, c up to its interrupt",
    );
  });

  for (const kind of ["MessagesAnnotation", "MessagesDeltaValue"] as const) {
    test(`${kind}: tool turns, an edit by id, RemoveMessage, REMOVE_ALL_MESSAGES and a fork, each turn on a new saver: messages as MemorySaver's [regression]`, async () => {
      const build = (saver: BaseCheckpointSaver) =>
        new StateGraph(
          (kind === "MessagesDeltaValue"
            ? new StateSchema({ messages: MessagesDeltaValue })
            : MessagesAnnotation) as typeof MessagesAnnotation,
        )
          .addNode("agent", async (s: { messages: BaseMessage[] }) => {
            const all = s.messages;
            const said = String(all.at(-1)?.content);
            const n = all.length;
            if (said.startsWith("remove"))
              return {
                messages: [
                  new RemoveMessage({ id: all[1]?.id as string }),
                  new AIMessage({ content: "removed", id: `r${n}` }),
                ],
              };
            if (said.startsWith("clear"))
              return {
                messages: [
                  new RemoveMessage({ id: REMOVE_ALL_MESSAGES }),
                  new SystemMessage({ content: "summary", id: "sys" }),
                  new AIMessage({ content: "cleared", id: `c${n}` }),
                ],
              };
            if (said.startsWith("edit"))
              return {
                messages: [
                  new AIMessage({ content: "edited", id: all[1]?.id as string }),
                  new AIMessage({ content: "did edit", id: `e${n}` }),
                ],
              };
            if (said.startsWith("tool"))
              return {
                messages: [
                  new AIMessage({
                    content: "",
                    id: `t${n}`,
                    tool_calls: [{ id: `tc${n}`, name: "w", args: { c: "x" } }],
                  }),
                  new ToolMessage({ content: "sunny", tool_call_id: `tc${n}`, id: `tm${n}` }),
                  new AIMessage({ content: "it is sunny", id: `ta${n}` }),
                ],
              };
            if (said.startsWith("twice"))
              return {
                messages: [
                  new AIMessage({ content: "same", id: `d1${n}` }),
                  new AIMessage({ content: "same", id: `d2${n}` }),
                ],
              };
            return { messages: [new AIMessage({ content: `echo ${said}`, id: `a${n}` })] };
          })
          .addEdge(START, "agent")
          .addEdge("agent", END)
          .compile({ checkpointer: saver });
      async function script(open: () => BaseCheckpointSaver) {
        const config = { configurable: { thread_id: "messages" } };
        const seen: unknown[] = [];
        const turns = [
          "hello",
          "tool please",
          "edit it",
          "remove one",
          "twice",
          "more",
          "clear all",
          "after",
          "x",
        ];
        for (const [i, said] of turns.entries()) {
          const state = await build(open()).invoke(
            { messages: [new HumanMessage({ content: said, id: `h${i}` })] },
            config,
          );
          seen.push(state.messages.map((m: BaseMessage) => `${m.id}:${contents([m])}`));
        }
        const history = [];
        for await (const h of build(open()).getStateHistory(config)) history.push(h);
        const target = history.find(
          (h) => (h.values.messages as BaseMessage[] | undefined)?.length === 6 && h.next.length === 0,
        );
        const forked = await build(open()).invoke(
          { messages: [new HumanMessage({ content: "branch", id: "hb" })] },
          target?.config as never,
        );
        seen.push(contents(forked.messages));
        for await (const h of build(open()).getStateHistory(config))
          seen.push([h.metadata?.step, contents(h.values.messages as BaseMessage[] | undefined)]);
        return seen;
      }
      const reference = new MemorySaver();
      const expected = await script(() => reference);
      const store = await memoryStore();
      assert.deepEqual(await script(() => new SessionTreeSaver({ store })), expected);
    });
  }

  // `cachedThreads` is how many idle threads are kept in memory. LangGraph calls putWrites without
  // waiting for the put of that checkpoint (its puts are chained, its writes are not), so writes
  // often wait for their put, in the thread's state (`WaitingWrites`, saver.ts). With more threads
  // active than `cachedThreads` (a server past 100 conversations at once; a `list()` of every
  // thread during a run), a thread in use is never dropped (thread-state.ts): dropped, a new state
  // was made, the put released its waiters, not the old ones, and the run failed with "Writes
  // against a checkpoint that was never put".
  test("more threads running at once than cachedThreads: every run completes, as with MemorySaver", async () => {
    const keepAlive = setInterval(() => undefined, 1000); // the wait's timer is unref'd
    try {
      const store = await memoryStore();
      const saver = new SessionTreeSaver({ store, cachedThreads: 2, writesWaitMs: 3000 });
      const graph = new StateGraph(MessagesAnnotation)
        .addNode("agent", async (s: typeof MessagesAnnotation.State) => ({
          messages: [new AIMessage(`answer ${s.messages.length}`)],
        }))
        .addEdge(START, "agent")
        .compile({ checkpointer: saver });
      const settled = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          outcome(
            graph.invoke({ messages: [new HumanMessage("hi")] }, { configurable: { thread_id: `t${i}` } }),
          ),
        ),
      );
      assert.deepEqual(settled, Array(6).fill("ok"));
    } finally {
      clearInterval(keepAlive);
    }
  });

  const echoGraph = (saver: BaseCheckpointSaver) =>
    new StateGraph(MessagesAnnotation)
      .addNode("agent", async (s: typeof MessagesAnnotation.State) => ({
        messages: [new AIMessage(`answer ${s.messages.length}`)],
      }))
      .addEdge(START, "agent")
      .compile({ checkpointer: saver });

  // docs/adapters.md: the saver checks the store's session before a read. A thread deleted by
  // another saver (process) and written again to the same revision (the same turn: a new session
  // starts at revision 1 and each turn adds the same number of writes) is told from the one this
  // saver indexed by its leaf, an entry id drawn at random (ThreadIndex.reflects): read again, as
  // SqliteSaver (two savers on one file) reads the new thread.
  test("a thread deleted and started again by another saver reads as the new thread, as with SqliteSaver", async () => {
    async function scenario(open: () => BaseCheckpointSaver) {
      const a = echoGraph(open());
      const otherSaver = open();
      const b = echoGraph(otherSaver);
      const config = { configurable: { thread_id: "deleted" } };
      await a.invoke({ messages: [new HumanMessage("old question")] }, config);
      await otherSaver.deleteThread("deleted");
      await b.invoke({ messages: [new HumanMessage("new question")] }, config);
      return contents((await a.getState(config)).values.messages as BaseMessage[]);
    }
    const expected = await scenario(() => SqliteSaver.fromConnString(join(folder, "deleted-ref.db")));
    assert.deepEqual(expected, ["human:new question", "ai:answer 1"]);
    const location = `sqlite:${join(folder, "deleted-ours.db")}`;
    assert.deepEqual(await scenario(() => new SessionTreeSaver({ store: location })), expected);
  });

  // Once another saver (process) has deleted the thread, this saver's next put starts it afresh,
  // as SqliteSaver does: StoreHistory forgets that it created the session whenever the store says
  // it is not there, and a write that finds it gone is a conflict, planned again.
  test("a saver keeps writing a thread another saver deleted, as SqliteSaver does", async () => {
    async function scenario(open: () => BaseCheckpointSaver) {
      const saver = open();
      const graph = echoGraph(saver);
      const config = { configurable: { thread_id: "gone" } };
      await graph.invoke({ messages: [new HumanMessage("first")] }, config);
      await open().deleteThread("gone");
      const result = await outcome(graph.invoke({ messages: [new HumanMessage("second")] }, config));
      return [result, contents((await graph.getState(config)).values.messages as BaseMessage[])];
    }
    const expected = await scenario(() => SqliteSaver.fromConnString(join(folder, "gone-ref.db")));
    assert.deepEqual(expected, ["ok", ["human:second", "ai:answer 1"]]);
    const location = `sqlite:${join(folder, "gone-ours.db")}`;
    assert.deepEqual(await scenario(() => new SessionTreeSaver({ store: location })), expected);
  });

  // docs/adapters.md: "An entry is at most 2 MB". A HumanMessage with a 1.2 MiB image, or a
  // ToolMessage with 1.1 MiB of text (a fetched document), is one message entry holding its
  // content once: pi's block, and the serde's text in `origin` with that content cut out
  // (record-text.ts; held twice, it was entry_too_large). MemorySaver takes both; read back, the
  // messages are the same.
  test("a checkpoint whose messages hold a 1.2 MiB image, or a 1.1 MiB tool result, is stored and read back", async () => {
    const store = await memoryStore();
    const saver = new SessionTreeSaver({ store });
    const put = (threadId: string, message: BaseMessage) => {
      const checkpoint = {
        ...emptyCheckpoint(),
        id: uuid6(-3),
        channel_values: { messages: [message] },
        channel_versions: { messages: 1 },
      };
      const config = { configurable: { thread_id: threadId, checkpoint_ns: "" } };
      return outcome(saver.put(config, checkpoint, meta, { messages: 1 }));
    };
    const image = new HumanMessage({
      id: "img",
      content: [{ type: "image_url", image_url: { url: imageDataUrl(1.2) } }],
    });
    const document = new ToolMessage({
      id: "doc",
      tool_call_id: "c1",
      content: "x".repeat(1.1 * 1024 * 1024),
    });
    assert.deepEqual([await put("image", image), await put("document", document)], ["ok", "ok"]);
    const reader = new SessionTreeSaver({ store });
    for (const [threadId, message] of [
      ["image", image],
      ["document", document],
    ] as const) {
      const tuple = await reader.getTuple({ configurable: { thread_id: threadId } });
      const [read] = (tuple?.checkpoint.channel_values.messages ?? []) as BaseMessage[];
      assert.deepEqual(read?.content, message.content);
      assert.equal(read?.id, message.id);
    }
  });
});
