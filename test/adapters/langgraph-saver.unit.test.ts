import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { MessagesAnnotation, StateGraph } from "@langchain/langgraph";
import { type Checkpoint, emptyCheckpoint, uuid6 } from "@langchain/langgraph-checkpoint";
import { SessionTreeSaver } from "../../src/adapters/langgraph/index.js";
import { openStore } from "../../src/store/registry.js";
import type { SessionStore } from "../../src/store/store.js";

const folder = mkdtempSync(join(tmpdir(), "sessiontree-langgraph-unit-"));
after(() => rmSync(folder, { recursive: true, force: true }));

const meta = { source: "loop" as const, step: 0, parents: {} };

function checkpoint(values: Record<string, unknown>, version: number): Checkpoint {
  const versions = Object.fromEntries(Object.keys(values).map((key) => [key, version]));
  return { ...emptyCheckpoint(), id: uuid6(-3), channel_values: values, channel_versions: versions };
}

async function messageEntries(store: SessionStore, thread: string): Promise<number> {
  const { entries } = await store.loadSession("local", thread);
  return entries.filter((entry) => entry.type === "message").length;
}

test("values that are not messages round-trip exactly through the serde: bytes, maps, sets, deep nesting", async () => {
  const saver = new SessionTreeSaver({ store: `sqlite:${join(folder, "values.db")}` });
  let deep: unknown = "bottom";
  for (let i = 0; i < 200; i++) deep = { level: i, inner: deep };
  const values = {
    bytes: new Uint8Array([0, 255, 128, 7]),
    map: new Map<string, unknown>([
      ["a", 1],
      ["b", [true, null]],
    ]),
    set: new Set(["x", "y"]),
    deep,
    text: "ünïcødé \u2028 \ud83d\ude00",
    numbers: [0, -1.5, 1e300],
  };
  const config = { configurable: { thread_id: "values", checkpoint_ns: "" } };
  const stored = checkpoint(values, 1);
  const saved = await saver.put(config, stored, meta, stored.channel_versions);
  await saver.putWrites(saved, [["bytes", new Uint8Array([9, 9])]], "task");
  const tuple = await saver.getTuple(saved);
  assert.deepEqual(tuple?.checkpoint.channel_values, values);
  assert.deepEqual(tuple?.pendingWrites, [["task", "bytes", new Uint8Array([9, 9])]]);
  await saver.close();
});

test("a message list is one entry per message: kept by instance or by id and content, changed ones added", async () => {
  const location = `sqlite:${join(folder, "messages.db")}`;
  const saver = new SessionTreeSaver({ store: location });
  const hi = new HumanMessage({ content: "hi", id: "m1" });
  const hello = new AIMessage({ content: "hello", id: "m2" });
  let config: RunnableConfig = { configurable: { thread_id: "chat", checkpoint_ns: "" } };
  const put = async (messages: BaseMessage[], version: number) => {
    const next = checkpoint({ messages }, version);
    config = await saver.put(config, next, meta, next.channel_versions);
    return (await saver.getTuple(config))?.checkpoint.channel_values.messages as BaseMessage[];
  };
  await put([hi], 1);
  await put([hi, hello], 2);
  // Copies, not the instances: matched by id and content, so nothing new is written.
  const copies = [
    new HumanMessage({ content: "hi", id: "m1" }),
    new AIMessage({ content: "hello", id: "m2" }),
  ];
  const read = await put(copies, 3);
  assert.deepEqual(
    read.map((m) => m.content),
    ["hi", "hello"],
  );
  // The same id with new content (an edit) is a new entry, in place in the list.
  const edited = await put([hi, new AIMessage({ content: "hello again", id: "m2" })], 4);
  assert.deepEqual(
    edited.map((m) => m.content),
    ["hi", "hello again"],
  );
  // A shorter list (a removal) keeps what is left.
  assert.deepEqual(
    (await put([hi], 5)).map((m) => m.content),
    ["hi"],
  );

  const store = await openStore(location);
  await store.init();
  assert.equal(await messageEntries(store, "chat"), 3, "hi, hello, hello again");
  await store.close();
  await saver.close();
});

test("two savers over one SQLite file take turns on a thread: each sees the other's checkpoints", async () => {
  const location = `sqlite:${join(folder, "shared.db")}`;
  const first = new SessionTreeSaver({ store: location });
  const second = new SessionTreeSaver({ store: location });
  let config: RunnableConfig = { configurable: { thread_id: "shared", checkpoint_ns: "" } };
  const messages: BaseMessage[] = [];
  for (let turn = 0; turn < 6; turn++) {
    const saver = turn % 2 === 0 ? first : second;
    const latest = await saver.getTuple({ configurable: { thread_id: "shared" } });
    assert.equal((latest?.checkpoint.channel_values.messages as unknown[] | undefined)?.length ?? 0, turn);
    messages.push(new HumanMessage({ content: `turn ${turn}`, id: `t${turn}` }));
    const next = checkpoint({ messages: [...messages] }, turn + 1);
    config = await saver.put(latest?.config ?? config, next, meta, next.channel_versions);
    await saver.putWrites(config, [["messages", [`w${turn}`]]], `task-${turn}`);
  }
  // `first` last read before `second` wrote: its write is refused as stale, read again, and retried.
  const late = checkpoint({ messages: [...messages] }, 7);
  config = await first.put(config, late, meta, late.channel_versions);
  // And `second` writes against a checkpoint only `first` has put.
  await second.putWrites(config, [["messages", ["late"]]], "task-late");
  const tuple = await first.getTuple({ configurable: { thread_id: "shared" } });
  assert.equal(tuple?.checkpoint.id, late.id);
  assert.equal((tuple?.checkpoint.channel_values.messages as unknown[] | undefined)?.length, 6);
  assert.deepEqual(tuple?.pendingWrites, [["task-late", "messages", ["late"]]]);
  let count = 0;
  for await (const _ of second.list({ configurable: { thread_id: "shared" } })) count++;
  assert.equal(count, 7);
  await first.close();
  await second.close();
});

test("bad configs are typed errors", async () => {
  const saver = new SessionTreeSaver({ store: "memory:" });
  await assert.rejects(saver.put({}, checkpoint({}, 1), meta, {}), { code: "invalid_argument" });
  await assert.rejects(saver.put({ configurable: { thread_id: "a b/c" } }, checkpoint({}, 1), meta, {}), {
    code: "invalid_argument",
  });
  await assert.rejects(saver.putWrites({ configurable: { thread_id: "t" } }, [], "task"), {
    code: "invalid_argument",
  });
  assert.equal(await saver.getTuple({ configurable: { thread_id: "never" } }), undefined);
  await saver.close();
});

test("a turn's calls share store writes: one append per checkpoint, its writes joining the next", async () => {
  const store = await openStore(`sqlite:${join(folder, "batched.db")}`);
  await store.init();
  const calls = { append: 0, setLeaf: 0 };
  const append = store.appendEntries.bind(store);
  const setLeaf = store.setLeaf.bind(store);
  store.appendEntries = (...args) => {
    calls.append++;
    return append(...args);
  };
  store.setLeaf = (...args) => {
    calls.setLeaf++;
    return setLeaf(...args);
  };
  const saver = new SessionTreeSaver({ store });
  const graph = new StateGraph(MessagesAnnotation)
    .addNode("agent", async (state: typeof MessagesAnnotation.State) => ({
      messages: [new AIMessage(`answer ${state.messages.length}`)],
    }))
    .addEdge("__start__", "agent")
    .compile({ checkpointer: saver });
  const turns = 10;
  for (let turn = 0; turn < turns; turn++) {
    const state = await graph.invoke(
      { messages: [new HumanMessage(`question ${turn}`)] },
      { configurable: { thread_id: "batched" } },
    );
    assert.equal(state.messages.length, 2 * (turn + 1));
  }
  // LangGraph makes 3 puts and 2 putWrites a turn; each put waits for the one before it.
  assert.equal(calls.append, 3 * turns);
  assert.equal(calls.setLeaf, 0);
  const { entries, summary } = await store.loadSession("local", "batched");
  assert.equal(entries.filter((entry) => entry.type === "message").length, 2 * turns);
  assert.equal(summary.leafId, entries.at(-1)?.id, "the leaf is the latest checkpoint's last writes");
  const resumed = new SessionTreeSaver({ store });
  const tuple = await resumed.getTuple({ configurable: { thread_id: "batched" } });
  assert.equal((tuple?.checkpoint.channel_values.messages as unknown[] | undefined)?.length, 2 * turns);
  await store.close();
});

test("a batch planned on a stale view is refused whole, then each of its calls is planned again and stored", async () => {
  const location = `sqlite:${join(folder, "stale-batch.db")}`;
  const first = new SessionTreeSaver({ store: location });
  const second = new SessionTreeSaver({ store: location });
  const thread = { configurable: { thread_id: "stale", checkpoint_ns: "" } };
  const start = checkpoint({ messages: [new HumanMessage({ content: "a", id: "a" })] }, 1);
  const startConfig = await first.put(thread, start, meta, start.channel_versions);
  // `second` writes the thread: `first`'s index is now a revision behind.
  await second.putWrites(startConfig, [["note", "from second"]], "task-second");
  // A put and writes against it, not awaited in between: planned into one batch.
  const next = checkpoint({ messages: [new HumanMessage({ content: "a", id: "a" }), new AIMessage("b")] }, 2);
  const nextConfig = { configurable: { ...startConfig.configurable, checkpoint_id: next.id } };
  const [stored] = await Promise.all([
    first.put(startConfig, next, meta, next.channel_versions),
    first.putWrites(nextConfig, [["note", "after"]], "task-first"),
  ]);
  assert.equal(stored.configurable?.checkpoint_id, next.id);
  const reader = new SessionTreeSaver({ store: location });
  const latest = await reader.getTuple({ configurable: { thread_id: "stale" } });
  assert.equal(latest?.checkpoint.id, next.id);
  assert.deepEqual(
    (latest?.checkpoint.channel_values.messages as BaseMessage[] | undefined)?.map((m) => m.content),
    ["a", "b"],
  );
  assert.deepEqual(latest?.pendingWrites, [["task-first", "note", "after"]]);
  const parent = await reader.getTuple(startConfig);
  assert.deepEqual(parent?.pendingWrites, [["task-second", "note", "from second"]]);
  await Promise.all([first.close(), second.close(), reader.close()]);
});
