/**
 * The OpenAI Agents SDK with its session kept by sessiontree: a tool turn, a rewind with popItem,
 * a turn on the new branch, and the branches listed. Everything is kept in `examples-sessions.db`.
 *
 *   npx tsx examples/openai-agents.ts                 against a loopback fake of the OpenAI API
 *   OPENAI_API_KEY=sk-… npx tsx examples/openai-agents.ts   against OpenAI
 *
 * Then look at the tree: npx sessiontree export … or open the store in `sessiontree view`.
 */
import { Agent, OpenAIProvider, Runner, setTracingDisabled, tool } from "@openai/agents";
import { z } from "zod";
// In your project: import { SessionTreeSession } from "sessiontree/openai-agents";
import { SessionTreeSession } from "../src/adapters/openai-agents/index.js";
import { startFakeOpenAiApi } from "../test/adapters/fixtures/fake-openai-api.js";

const realKey = process.env.OPENAI_API_KEY;
const fake = realKey ? undefined : await startFakeOpenAiApi();
if (fake) setTracingDisabled(true);
const provider = new OpenAIProvider(fake ? { apiKey: "sk-fake", baseURL: fake.url } : { apiKey: realKey });
const runner = new Runner({ modelProvider: provider });

const weather = tool({
  name: "weather",
  description: "The weather in a city",
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => `sunny in ${city}`,
});
const agent = new Agent({
  name: "helper",
  instructions: "Answer briefly.",
  model: "gpt-4.1",
  tools: [weather],
});

// The one line that changes: `new MemorySession()` becomes
const session = new SessionTreeSession({
  store: "sqlite:examples-sessions.db",
  sessionId: `example-${Date.now()}`,
  model: { provider: "openai", model: "gpt-4.1", api: "openai-responses" },
});

const ask = async (input: string) =>
  console.log(`> ${input}\n${(await runner.run(agent, input, { session })).finalOutput}`);
await ask("Hello!");
await ask(fake ? 'call weather {"city":"Oslo"}' : "What is the weather in Oslo? Use the tool.");

// Rewind the tool turn: the items stay in the tree, on a branch of their own.
let popped = await session.popItem();
while (popped && !(popped.type === "message" && popped.role === "user")) popped = await session.popItem();
await ask("Tell me a short joke instead.");

for (const branch of await session.listBranches())
  console.log(`branch ${branch.leafId}: ${branch.itemCount} items${branch.current ? " (current)" : ""}`);
console.log(`session ${await session.getSessionId()} in examples-sessions.db`);
await session.close();
await fake?.close();
