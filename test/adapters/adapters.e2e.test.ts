import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { after, describe, test } from "node:test";
import { promisify } from "node:util";
import type { UIMessage } from "ai";
import { createChatStore } from "../../src/adapters/ai-sdk/index.js";
import { SessionTreeSession } from "../../src/adapters/openai-agents/index.js";
import { agentsRunner, turn } from "./fixtures/agents.js";
import { chatRoute, TestChat } from "./fixtures/chat-route.js";
import { startFakeOpenAiApi } from "./fixtures/fake-openai-api.js";
import { assertPiSeesSameContext, sessiontreeTree } from "./fixtures/pi-check.js";
import { type StoreKind, storeKinds } from "./fixtures/stores.js";

const OWNER = "e2e";

/**
 * One turn in a new process over the same store (see fixtures/adapter-child.ts). Asynchronous: the
 * fake API the child talks to is served by this process's event loop.
 */
async function turnInChild(
  kind: "agents" | "ai-sdk",
  location: string,
  id: string,
  url: string,
  text: string,
) {
  const child = ["--import", "tsx", "test/adapters/fixtures/adapter-child.ts", kind, location, id, url, text];
  const { stdout } = await promisify(execFile)(process.execPath, child, { encoding: "utf8" });
  return JSON.parse(stdout) as unknown;
}

/** The session's pi file as `sessiontree tree` prints it, after pi has opened it with our context. */
async function treeOf(kind: StoreKind, sessionId: string): Promise<string> {
  const store = await kind.open();
  try {
    const pi = await assertPiSeesSameContext(store, kind, OWNER, sessionId);
    try {
      return sessiontreeTree(kind.file(sessionId) ?? pi.exported);
    } finally {
      pi.cleanup();
    }
  } finally {
    await store.close();
  }
}

describe("the adapters across processes, then in `sessiontree tree` and pi", async () => {
  const fake = await startFakeOpenAiApi();
  const kinds = storeKinds();
  after(async () => {
    await fake.close();
    for (const kind of kinds) kind.cleanup();
  });

  for (const kind of kinds) {
    test(`openai-agents over ${kind.name}: a tool turn, a resume in a new process, a rewind and a continue`, async () => {
      const id = `agents-${kind.name}`;
      const { runner, agent } = agentsRunner(fake.url);
      let session = new SessionTreeSession({ store: kind.location, owner: OWNER, sessionId: id });
      await turn(runner, agent, 'call weather {"city":"Oslo"}', session);
      const before = await session.getItems();
      await session.close();

      const afterChild = (await turnInChild(
        "agents",
        kind.location,
        id,
        fake.url,
        "hello from the child",
      )) as unknown[];
      assert.deepEqual(afterChild.slice(0, before.length), before);
      assert.equal(afterChild.length, before.length + 2);

      session = new SessionTreeSession({ store: kind.location, owner: OWNER, sessionId: id });
      assert.deepEqual(await session.getItems(), afterChild);
      await session.popItem();
      await session.popItem();
      await turn(runner, agent, "continue here", session);
      assert.equal((await session.listBranches()).length, 2);
      await session.close();

      const tree = await treeOf(kind, id);
      assert.match(tree, /asst → weather/);
      assert.match(tree, /tool:weather sunny in Oslo/);
      assert.match(tree, /○ \w+ user hello from the child/, "the rewound turn stays, off the path");
      assert.match(tree, /◉ \w+ asst You said: continue here ← leaf/);
      assert.deepEqual(fake.rejected, []);
    });

    test(`ai-sdk over ${kind.name}: a tool turn, a turn in a new process, a regenerate and a continue`, async () => {
      const id = `chat-${kind.name}`;
      let chats = createChatStore({ store: kind.location, owner: OWNER });
      let chat = new TestChat(id, [], chatRoute(fake.url, chats));
      await chat.sendMessage({ text: 'call weather {"city":"Bergen"}' });
      await chats.close();

      const afterChild = (await turnInChild(
        "ai-sdk",
        kind.location,
        id,
        fake.url,
        "hello from the child",
      )) as UIMessage[];
      assert.equal(afterChild.length, 4);

      chats = createChatStore({ store: kind.location, owner: OWNER });
      assert.deepEqual(await chats.loadChat(id), afterChild);
      chat = new TestChat(id, afterChild, chatRoute(fake.url, chats));
      await chat.regenerate();
      await chat.sendMessage({ text: "continue here" });
      const last = afterChild.at(-1) as UIMessage;
      const versions = await chats.listAlternatives({
        chatId: id,
        messageId: chat.messages[3]?.id as string,
      });
      assert.deepEqual(
        versions.versions.map((v) => v.message.id),
        [last.id, chat.messages[3]?.id],
      );
      await chats.close();

      const tree = await treeOf(kind, id);
      assert.match(tree, /asst → weather/);
      assert.match(tree, /tool:weather \{"forecast":"sunny in Bergen"\}/);
      assert.match(tree, /○ \w+ asst You said: hello from the child/, "the first answer stays, off the path");
      assert.match(tree, /◉ \w+ asst You said: continue here ← leaf/);
      assert.deepEqual(fake.rejected, []);
    });
  }
});
