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
