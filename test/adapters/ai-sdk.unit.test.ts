import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import type { UIMessage } from "ai";
import { type ChatStore, createChatStore } from "../../src/adapters/ai-sdk/index.js";
import type { SessionEntry } from "../../src/core/entry.js";
import { SessionManager } from "../../src/session/session-manager.js";
import type { SessionStore } from "../../src/store/store.js";
import { chatRoute, TestChat } from "./fixtures/chat-route.js";
import { type FakeOpenAiApi, startFakeOpenAiApi } from "./fixtures/fake-openai-api.js";
import { assertPiSeesSameContext } from "./fixtures/pi-check.js";
import { storeKinds } from "./fixtures/stores.js";

const OWNER = "bob";
const MODEL = { provider: "openai", model: "gpt-4.1", api: "openai-responses" };
/** As JSON carries it (the client sends its messages as JSON; keys holding undefined are not sent). */
const json = <T>(value: T): T => JSON.parse(JSON.stringify(value));
const textOf = (message: UIMessage | undefined) =>
  message?.parts.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("") ?? "";

interface Backing {
  chats: ChatStore;
  chatId: string;
  /** Every entry the session holds, in storage order. */
  entries(): Promise<SessionEntry[]>;
  /** Closes and opens the storage again, as a restarted server would: a new chat store over it. */
  restart(): Promise<Backing>;
}

/**
 * A whole chat through the AI SDK's own client (`AbstractChat`, what `useChat` runs) and a
 * `streamText` route saving in `onFinish`: two turns (the second calls a tool), a regenerate, a
 * restart, a turn after it, an edit of the first prompt, a switch back to the first version, and a
 * stopped stream.
 */
async function chatScript(fake: FakeOpenAiApi, start: Backing) {
  let backing = start;
  const client = (messages: UIMessage[]) =>
    new TestChat(backing.chatId, messages, chatRoute(fake.url, backing.chats));
  let chat = client([]);
  await chat.sendMessage({ text: "hello" });
  await chat.sendMessage({ text: 'call weather {"city":"Oslo"}' });
  assert.deepEqual(
    await backing.chats.loadChat(backing.chatId),
    json(chat.messages),
    "saved as the client has it",
  );
  const firstAnswer = json(chat.messages.at(-1) as UIMessage);

  await chat.regenerate();
  const regenerated = json(chat.messages.at(-1) as UIMessage);
  assert.notEqual(regenerated.id, firstAnswer.id);
  const answers = await backing.chats.listAlternatives({ chatId: backing.chatId, messageId: regenerated.id });
  assert.equal(answers.index, 1);
  assert.deepEqual(
    answers.versions.map((v) => v.message),
    [firstAnswer, regenerated],
    "the old answer is kept as version 1 of 2",
  );

  backing = await backing.restart();
  chat = client(await backing.chats.loadChat(backing.chatId));
  await chat.sendMessage({ text: "and tomorrow?" });
  assert.equal(textOf(chat.messages.at(-1)), "You said: and tomorrow?");
  const beforeEdit = json(chat.messages);
  assert.deepEqual(await backing.chats.loadChat(backing.chatId), beforeEdit);

  const before = (await backing.entries()).length;
  await backing.chats.saveChat({ chatId: backing.chatId, messages: beforeEdit });
  assert.equal((await backing.entries()).length, before, "saving the whole history again writes nothing");

  const firstPrompt = beforeEdit[0] as UIMessage;
  await chat.sendMessage({ text: "hello again", messageId: firstPrompt.id });
  assert.deepEqual(chat.messages.map(textOf), ["hello again", "You said: hello again"]);
  const prompts = await backing.chats.listAlternatives({ chatId: backing.chatId, messageId: firstPrompt.id });
  assert.deepEqual(
    prompts.versions.map((v) => textOf(v.message)),
    ["hello", "hello again"],
  );

  const back = await backing.chats.selectAlternative({
    chatId: backing.chatId,
    versionId: prompts.versions[0]?.versionId as string,
  });
  assert.deepEqual(back, beforeEdit, "switching back lands where that version was left");
  assert.deepEqual(await backing.chats.loadChat(backing.chatId), beforeEdit);

  chat = client(back);
  const stalled = fake.stalled();
  const sending = chat.sendMessage({ text: "please stall" });
  await stalled;
  await waitFor(() => textOf(chat.messages.at(-1)) === "partial answer ");
  await chat.stop();
  await sending;
  const stopped = chat.messages.at(-1) as UIMessage;
  await waitFor(async () => (await backing.chats.loadChat(backing.chatId)).at(-1)?.id === stopped.id);
  const partial = await backing.chats.listAlternatives({ chatId: backing.chatId, messageId: stopped.id });
  assert.equal(partial.versions[partial.index]?.partial, true, "a stopped stream is saved as partial");
  const last = (await backing.entries()).at(-1) as SessionEntry & { message: { stopReason: string } };
  assert.equal(last.message.stopReason, "aborted", "pi reads the stopped answer as aborted");
  assert.deepEqual(fake.rejected, [], "the fake API refused a request");
  return backing;
}

async function waitFor(check: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.fail("timed out waiting");
}

describe("sessiontree/ai-sdk under streamText and the AI SDK's chat client", () => {
  const kinds = storeKinds();
  after(() => {
    for (const kind of kinds) kind.cleanup();
  });

  for (const kind of kinds) {
    test(`over the ${kind.name} store`, async () => {
      const fake = await startFakeOpenAiApi();
      const chatId = `chat-${kind.name}`;
      const over = async (store: SessionStore): Promise<Backing> => ({
        chats: createChatStore({ store, owner: OWNER, model: MODEL }),
        chatId,
        entries: async () => (await store.loadSession(OWNER, chatId)).entries,
        restart: async () => {
          await store.close();
          return over(await kind.open());
        },
      });
      let store: SessionStore | undefined;
      try {
        const end = await chatScript(fake, await over(await kind.open()));
        store = await kind.open();
        await end.chats.close();
        const pi = await assertPiSeesSameContext(store, kind, OWNER, chatId);
        pi.cleanup();
      } finally {
        await store?.close();
        await fake.close();
      }
    });
  }

  test("over a SessionManager file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sessiontree-ai-sdk-manager-"));
    const fake = await startFakeOpenAiApi();
    try {
      const over = (manager: SessionManager): Backing => ({
        chats: createChatStore({ manager, model: MODEL }),
        chatId: manager.getSessionId(),
        entries: async () => manager.getEntries(),
        restart: async () => over(SessionManager.open(manager.getSessionFile() as string, dir)),
      });
      await chatScript(fake, over(SessionManager.create("/project", dir)));
    } finally {
      await fake.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
