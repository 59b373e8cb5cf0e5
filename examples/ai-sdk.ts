/**
 * A chat route of the AI SDK (`streamText` + `toUIMessageStreamResponse`) persisting through
 * sessiontree, driven by the AI SDK's own chat client: two turns, a regenerate (the old answer is
 * kept as version 1 of 2), and a switch back to the first answer.
 *
 *   npx tsx examples/ai-sdk.ts                   against a loopback fake of the OpenAI API
 *   OPENAI_API_KEY=sk-… npx tsx examples/ai-sdk.ts   against OpenAI
 */
import { createOpenAI } from "@ai-sdk/openai";
import {
  AbstractChat,
  type ChatState,
  type ChatStatus,
  convertToModelMessages,
  createIdGenerator,
  DefaultChatTransport,
  streamText,
  type UIMessage,
} from "ai";
// In your project: import { createChatStore } from "sessiontree/ai-sdk";
import { createChatStore } from "../src/adapters/ai-sdk/index.js";
import { startFakeOpenAiApi } from "../test/adapters/fixtures/fake-openai-api.js";

const realKey = process.env.OPENAI_API_KEY;
const fake = realKey ? undefined : await startFakeOpenAiApi();
const openai = createOpenAI(fake ? { apiKey: "sk-fake", baseURL: fake.url } : { apiKey: realKey });

// The one line that changes: the guide's file-based chat-store module becomes
const { loadChat, saveChat, listAlternatives, selectAlternative, createChat, close } = createChatStore({
  store: "jsonl:examples-chats",
  model: { provider: "openai", model: "gpt-4.1", api: "openai-responses" },
});

/** The route, as in the AI SDK's persistence guide (app/api/chat/route.ts). */
async function POST(req: Request): Promise<Response> {
  const { id, messages } = (await req.json()) as { id: string; messages: UIMessage[] };
  const result = streamText({ model: openai("gpt-4.1"), messages: await convertToModelMessages(messages) });
  return result.toUIMessageStreamResponse({
    originalMessages: messages,
    generateMessageId: createIdGenerator({ prefix: "msg", size: 16 }),
    onFinish: (event) => saveChat({ chatId: id, ...event }),
  });
}

/** What `useChat` runs in the browser, with plain state, posting to the route in-process. */
class Chat extends AbstractChat<UIMessage> {
  constructor(id: string, messages: UIMessage[]) {
    const transport = new DefaultChatTransport<UIMessage>({
      api: "http://localhost/api/chat",
      fetch: async (input, init) => POST(new Request(input as string, init)),
    });
    const state: ChatState<UIMessage> = {
      status: "ready" as ChatStatus,
      error: undefined,
      messages,
      pushMessage: (m) => {
        state.messages = [...state.messages, m];
      },
      popMessage: () => {
        state.messages = state.messages.slice(0, -1);
      },
      replaceMessage: (i, m) => {
        state.messages = state.messages.map((old, j) => (j === i ? m : old));
      },
      snapshot: (thing) => structuredClone(thing),
    };
    super({ id, transport, state });
  }
}

const textOf = (m: UIMessage | undefined) => m?.parts.map((p) => (p.type === "text" ? p.text : "")).join("");
const chatId = await createChat();
const chat = new Chat(chatId, await loadChat(chatId));
await chat.sendMessage({ text: "Hello!" });
await chat.sendMessage({ text: "Name a colour." });
console.log("answer 1:", textOf(chat.messages.at(-1)));
await chat.regenerate();
const last = chat.messages.at(-1) as UIMessage;
const versions = await listAlternatives({ chatId, messageId: last.id });
console.log(`answer ${versions.index + 1}/${versions.versions.length}:`, textOf(last));
const back = await selectAlternative({ chatId, versionId: versions.versions[0]?.versionId as string });
console.log("switched back to answer 1:", textOf(back.at(-1)));
console.log(`chat ${chatId} in examples-chats/`);
await close();
await fake?.close();
