import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import type { AgentInputItem } from "@openai/agents";
import { ITEM_CUSTOM_TYPE, SessionTreeSession } from "../../src/adapters/openai-agents/index.js";
import { SessionManager } from "../../src/session/session-manager.js";
import { MemoryStore } from "../../src/store/memory/memory-store.js";

const user = (content: string): AgentInputItem => ({ type: "message", role: "user", content });
const call: AgentInputItem = {
  type: "function_call",
  callId: "call_1",
  name: "weather",
  arguments: '{"city":"Oslo"}',
  status: "completed",
  providerData: { type: "function_call" },
};
const result: AgentInputItem = {
  type: "function_call_result",
  callId: "call_1",
  name: "weather",
  status: "completed",
  output: { type: "text", text: "sunny" },
};
const answer: AgentInputItem = {
  id: "msg_1",
  type: "message",
  role: "assistant",
  status: "completed",
  content: [{ type: "output_text", text: "It is sunny." }],
};
const reasoning: AgentInputItem = { type: "reasoning", content: [{ type: "input_text", text: "thinking" }] };

async function fresh() {
  const store = new MemoryStore();
  await store.init();
  const session = new SessionTreeSession({
    store,
    owner: "o",
    sessionId: "s",
    model: { provider: "openai", model: "m" },
  });
  return { store, session };
}

describe("SessionTreeSession", () => {
  test("items are stored as the messages, tool calls and results the rest of sessiontree reads", async () => {
    const { store, session } = await fresh();
    await session.addItems([user("weather?"), call, result, answer, reasoning]);
    const path = await store.readBranch("o", "s");
    const blocks = (content: unknown) => (Array.isArray(content) ? content.map((b) => b.type) : []);
    const shapes = path.map((entry) =>
      entry.type === "message"
        ? [entry.message.role, ...blocks(entry.message.content)]
        : [entry.type, (entry as { customType?: string }).customType],
    );
    assert.deepEqual(shapes, [
      ["user"],
      ["assistant", "toolCall"],
      ["toolResult", "text"],
      ["assistant", "text"],
      ["custom", ITEM_CUSTOM_TYPE],
    ]);
    const toolCall = (path[1] as { message: { content: unknown[] } }).message.content[0];
    assert.deepEqual(toolCall, {
      type: "toolCall",
      id: "call_1",
      name: "weather",
      arguments: { city: "Oslo" },
    });
    assert.deepEqual(await session.getItems(), [user("weather?"), call, result, answer, reasoning]);
  });

  test("getItems(limit) gives the most recent items in order; 0 gives none", async () => {
    const { session } = await fresh();
    await session.addItems([user("a"), user("b"), user("c")]);
    assert.deepEqual(await session.getItems(2), [user("b"), user("c")]);
    assert.deepEqual(await session.getItems(0), []);
  });

  test("an item holding bytes comes back as bytes", async () => {
    const { session } = await fresh();
    const withBytes = {
      type: "function_call_result",
      callId: "c",
      name: "shot",
      status: "completed",
      output: { type: "image", image: { data: new Uint8Array([0, 1, 254, 255]), mediaType: "image/png" } },
    } as AgentInputItem;
    await session.addItems([withBytes]);
    assert.deepEqual(await session.getItems(), [withBytes]);
  });

  test("items handed out are copies: changing one changes nothing stored", async () => {
    const { session } = await fresh();
    await session.addItems([user("a")]);
    const [item] = await session.getItems();
    (item as { content: string }).content = "changed";
    assert.deepEqual(await session.getItems(), [user("a")]);
  });

  test("popItem and clearSession delete nothing: the items stay in the store, on abandoned branches", async () => {
    const { store, session } = await fresh();
    await session.addItems([user("a"), user("b")]);
    assert.deepEqual(await session.popItem(), user("b"));
    await session.clearSession();
    assert.deepEqual(await session.getItems(), []);
    assert.equal(await session.popItem(), undefined);
    await session.addItems([user("c")]);
    assert.equal((await store.loadSession("o", "s")).entries.length, 3);
    const branches = await session.listBranches();
    assert.deepEqual(
      branches.map((b) => [b.itemCount, b.current]),
      [
        [2, false],
        [1, true],
      ],
    );
  });

  test("parallel function calls are one assistant message; getItems and popItem still see one item each", async () => {
    const { store, session } = await fresh();
    const second: AgentInputItem = { ...call, callId: "call_2", arguments: '{"city":"Bergen"}' };
    const secondResult: AgentInputItem = { ...result, callId: "call_2", output: "rain" };
    const items = [user("weather in Oslo and Bergen?"), call, second, result, secondResult, answer];
    await session.addItems(items);
    const path = await store.readBranch("o", "s");
    const calls = path.map((entry) =>
      entry.type === "message" && entry.message.role === "assistant"
        ? (entry.message.content as Array<{ type: string; id?: string }>).map(
            (block) => block.id ?? block.type,
          )
        : entry.type === "message"
          ? entry.message.role
          : entry.type,
    );
    assert.deepEqual(calls, ["user", ["call_1", "call_2"], "toolResult", "toolResult", ["text"]]);
    assert.deepEqual(await session.getItems(), items, "each item read back exactly, in order");
    const entries = await session.getItemEntries();
    assert.equal(entries[1]?.entryId, entries[2]?.entryId, "the two calls share their entry");

    // Popped one item at a time: the second call alone leaves an entry holding the first.
    for (const expected of [answer, secondResult, result, second])
      assert.deepEqual(await session.popItem(), expected);
    assert.deepEqual(await session.getItems(), [user("weather in Oslo and Bergen?"), call]);
    const leaf = (await store.readBranch("o", "s")).at(-1);
    assert.ok(leaf?.type === "message" && leaf.message.role === "assistant");
    assert.deepEqual(
      (leaf.message.content as Array<{ id?: string }>).map((block) => block.id),
      ["call_1"],
      "the kept call is an entry of its own, labelled as the one it came from",
    );
    assert.equal(leaf.message.model, "m");
    assert.deepEqual(await session.popItem(), call);
    assert.deepEqual(await session.getItems(), [user("weather in Oslo and Bergen?")]);
    // Nothing was deleted: the whole exchange is still a branch of the tree.
    const branches = await session.listBranches();
    assert.ok(branches.some((branch) => branch.itemCount === items.length));
  });

  test("parallel function calls over a SessionManager: one entry, read back and popped the same way", async () => {
    const dir = mkdtempSync(join(tmpdir(), "st-oa-parallel-"));
    try {
      const manager = SessionManager.create(dir, dir);
      const session = new SessionTreeSession({ manager });
      const second: AgentInputItem = { ...call, callId: "call_2" };
      await session.addItems([user("q"), call, second]);
      assert.equal(manager.getBranch().length, 2);
      assert.deepEqual(await session.getItems(), [user("q"), call, second]);
      assert.deepEqual(await session.popItem(), second);
      assert.deepEqual(await session.getItems(), [user("q"), call]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("two writers on one session never fork it: the later write is planned again on the new leaf", async () => {
    const { store } = await fresh();
    const a = new SessionTreeSession({ store, owner: "o", sessionId: "shared" });
    const b = new SessionTreeSession({ store, owner: "o", sessionId: "shared" });
    await a.addItems([user("first")]);
    await Promise.all([a.addItems([user("from a")]), b.addItems([user("from b")])]);
    const items = await a.getItems();
    assert.equal(items.length, 3);
    assert.equal((await store.loadSession("o", "shared")).entries.length, 3);
    assert.equal((await a.listBranches()).length, 1);
  });

  test("a rewind planned before another writer's append is planned again: it never hides that append", async () => {
    const { store, session } = await fresh();
    await session.addItems([user("a"), user("b")]);
    const other = new SessionTreeSession({ store, owner: "o", sessionId: "s" });
    // Another writer appends between this popItem's read and its leaf move.
    const setLeaf = store.setLeaf.bind(store);
    let slipped = false;
    store.setLeaf = async (...args) => {
      if (!slipped) {
        slipped = true;
        await other.addItems([user("slipped in")]);
      }
      return setLeaf(...args);
    };
    assert.deepEqual(await session.popItem(), user("slipped in"));
    assert.deepEqual(await session.getItems(), [user("a"), user("b")]);
  });

  test("a session is created in the store on first use, under the given id", async () => {
    const { store, session } = await fresh();
    assert.equal(await session.getSessionId(), "s");
    assert.equal((await store.getSummary("o", "s")).entryCount, 0);
  });

  test("over pi's own SessionManager: items, a rewind and a continue", async () => {
    const pi = PiSessionManager.inMemory("/project");
    const session = new SessionTreeSession({ manager: pi });
    await session.addItems([user("a"), answer]);
    assert.deepEqual(await session.popItem(), answer);
    await session.addItems([user("b")]);
    assert.deepEqual(await session.getItems(), [user("a"), user("b")]);
    assert.equal(pi.getEntries().length, 3);
    assert.equal(await session.getSessionId(), pi.getSessionId());
  });

  test("over a SessionManager file, a rewind survives reopening the file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sessiontree-agents-reopen-"));
    try {
      const manager = SessionManager.create("/project", dir);
      await new SessionTreeSession({ manager }).addItems([user("a"), answer]);
      await new SessionTreeSession({ manager }).popItem();
      const reopened = SessionManager.open(manager.getSessionFile() as string, dir);
      assert.deepEqual(await new SessionTreeSession({ manager: reopened }).getItems(), [user("a")]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("neither or both of store and manager is a typed error", () => {
    assert.throws(() => new SessionTreeSession({}), { code: "invalid_argument" });
  });
});
