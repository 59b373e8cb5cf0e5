import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { UIMessage } from "ai";
import { createChatStore } from "../../src/adapters/ai-sdk/index.js";
import { MemoryStore } from "../../src/store/memory/memory-store.js";

const user = (id: string, text: string): UIMessage => ({ id, role: "user", parts: [{ type: "text", text }] });
const answer = (id: string, text: string, state: "done" | "streaming" = "done"): UIMessage => ({
  id,
  role: "assistant",
  parts: [{ type: "step-start" }, { type: "text", text, state }],
});
const toolAnswer: UIMessage = {
  id: "a-tool",
  role: "assistant",
  parts: [
    { type: "step-start" },
    { type: "text", text: "Let me look." },
    {
      type: "tool-weather",
      toolCallId: "c1",
      state: "output-available",
      input: { city: "Oslo" },
      output: "sunny",
    },
    { type: "step-start" },
    { type: "text", text: "It is sunny." },
  ],
};

async function fresh() {
  const store = new MemoryStore();
  await store.init();
  return { store, chats: createChatStore({ store, owner: "o", model: { provider: "openai", model: "m" } }) };
}

describe("createChatStore", () => {
  test("an assistant message with a tool is stored per step: assistant, tool result, assistant", async () => {
    const { store, chats } = await fresh();
    await chats.saveChat({ chatId: "c", messages: [user("u1", "weather?"), toolAnswer] });
    const path = await store.readBranch("o", "c");
    const roles = path.map((entry) => (entry.type === "message" ? entry.message.role : entry.type));
    assert.deepEqual(roles, ["user", "assistant", "toolResult", "assistant"]);
    const calls = (path[1] as { message: { content: Array<{ type: string }> } }).message.content;
    assert.deepEqual(
      calls.map((block) => block.type),
      ["text", "toolCall"],
    );
    assert.deepEqual(await chats.loadChat("c"), [user("u1", "weather?"), toolAnswer]);
  });

  test("loading a chat never saved gives [] and creates nothing", async () => {
    const { store, chats } = await fresh();
    assert.deepEqual(await chats.loadChat("nope"), []);
    assert.equal((await store.listSessions("o")).items.length, 0);
  });

  test("a save is idempotent, and re-saving an older branch moves back to it without writing", async () => {
    const { store, chats } = await fresh();
    const first = [user("u1", "hi"), answer("a1", "hello")];
    await chats.saveChat({ chatId: "c", messages: first });
    await chats.saveChat({ chatId: "c", messages: first });
    const regenerated = [user("u1", "hi"), answer("a2", "hey")];
    await chats.saveChat({ chatId: "c", messages: regenerated });
    const count = (await store.loadSession("o", "c")).entries.length;
    assert.equal(count, 3);
    await chats.saveChat({ chatId: "c", messages: first });
    assert.equal((await store.loadSession("o", "c")).entries.length, count);
    assert.deepEqual(await chats.loadChat("c"), first);
  });

  test("an unfinished part makes the message partial; a completed version under its id supersedes it", async () => {
    const { chats } = await fresh();
    await chats.saveChat({ chatId: "c", messages: [user("u1", "hi"), answer("a1", "hel", "streaming")] });
    let versions = await chats.listAlternatives({ chatId: "c", messageId: "a1" });
    assert.deepEqual(
      versions.versions.map((v) => v.partial),
      [true],
    );
    await chats.saveChat({ chatId: "c", messages: [user("u1", "hi"), answer("a1", "hello")] });
    versions = await chats.listAlternatives({ chatId: "c", messageId: "a1" });
    assert.deepEqual(
      versions.versions.map((v) => [v.partial, v.selected]),
      [[false, true]],
    );
  });

  test("an answer continued under its id (a tool output added) is one version, not two", async () => {
    const { store, chats } = await fresh();
    const call = { type: "tool-weather", toolCallId: "c1", input: { city: "Oslo" } } as const;
    const waiting: UIMessage = {
      id: "a1",
      role: "assistant",
      parts: [{ type: "step-start" }, { ...call, state: "input-available" }],
    };
    const continued: UIMessage = {
      id: "a1",
      role: "assistant",
      parts: [{ type: "step-start" }, { ...call, state: "output-available", output: "sunny" }],
    };
    await chats.saveChat({ chatId: "c", messages: [user("u1", "weather?"), waiting] });
    await chats.saveChat({ chatId: "c", messages: [user("u1", "weather?"), continued] });
    const versions = await chats.listAlternatives({ chatId: "c", messageId: "a1" });
    assert.deepEqual(
      versions.versions.map((v) => v.message),
      [continued],
    );
    assert.equal(
      (await store.loadSession("o", "c")).entries.length,
      4,
      "the first save is kept, off the path",
    );
  });

  test("isAborted marks only the last assistant message partial", async () => {
    const { chats } = await fresh();
    await chats.saveChat({ chatId: "c", messages: [user("u1", "hi"), answer("a1", "hel")], isAborted: true });
    const versions = await chats.listAlternatives({ chatId: "c", messageId: "a1" });
    assert.equal(versions.versions[0]?.partial, true);
    const prompt = await chats.listAlternatives({ chatId: "c", messageId: "u1" });
    assert.equal(prompt.versions[0]?.partial, false);
  });

  test("messages without ids, or with an id twice, are refused before anything is written", async () => {
    const { store, chats } = await fresh();
    await assert.rejects(chats.saveChat({ chatId: "c", messages: [user("", "hi")] }), {
      code: "invalid_argument",
    });
    await assert.rejects(chats.saveChat({ chatId: "c", messages: [user("u", "a"), user("u", "b")] }), {
      code: "invalid_argument",
    });
    assert.equal((await store.listSessions("o")).items.length, 0);
  });

  test("an unknown message or version is entry_not_found", async () => {
    const { chats } = await fresh();
    await chats.saveChat({ chatId: "c", messages: [user("u1", "hi")] });
    await assert.rejects(chats.listAlternatives({ chatId: "c", messageId: "zz" }), {
      code: "entry_not_found",
    });
    await assert.rejects(chats.selectAlternative({ chatId: "c", versionId: "zz" }), {
      code: "entry_not_found",
    });
  });

  test("loaded messages are the caller's own: changing one changes nothing stored, and saving it is an edit", async () => {
    const { chats } = await fresh();
    await chats.saveChat({ chatId: "c", messages: [user("u1", "hi"), answer("a1", "hello")] });
    const loaded = await chats.loadChat("c");
    (loaded[0]?.parts[0] as { text: string }).text = "changed";
    assert.deepEqual(await chats.loadChat("c"), [user("u1", "hi"), answer("a1", "hello")]);
    const listed = await chats.listAlternatives({ chatId: "c", messageId: "a1" });
    (listed.versions[0]?.message.parts[1] as { text: string }).text = "changed too";
    assert.deepEqual((await chats.loadChat("c"))[1], answer("a1", "hello"));
    await chats.saveChat({ chatId: "c", messages: loaded.slice(0, 1) });
    const versions = await chats.listAlternatives({ chatId: "c", messageId: "u1" });
    assert.deepEqual(
      versions.versions.map((v) => (v.message.parts[0] as { text: string }).text),
      ["hi", "changed"],
      "the edited prompt is a version beside the stored one",
    );
  });

  test("the same message with its keys in another order is not new", async () => {
    const { store, chats } = await fresh();
    await chats.saveChat({ chatId: "c", messages: [user("u1", "hi"), answer("a1", "hello")] });
    const before = await store.readBranch("o", "c");
    const reordered: UIMessage = {
      parts: [{ text: "hello", state: "done", type: "text" }],
      role: "assistant",
      id: "a1",
    };
    const withStep: UIMessage = { ...reordered, parts: [{ type: "step-start" }, ...reordered.parts] };
    await chats.saveChat({
      chatId: "c",
      messages: [{ parts: [{ text: "hi", type: "text" }], role: "user", id: "u1" }, withStep],
    });
    assert.deepEqual(await store.readBranch("o", "c"), before);
  });

  test("createChat gives a new, empty, listed chat", async () => {
    const { store, chats } = await fresh();
    const id = await chats.createChat();
    assert.deepEqual(await chats.loadChat(id), []);
    assert.equal((await store.getSummary("o", id)).entryCount, 0);
  });
});
