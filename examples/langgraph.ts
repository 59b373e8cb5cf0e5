/**
 * A LangGraph agent (StateGraph + MessagesAnnotation, ChatOpenAI, a ToolNode) whose checkpoints
 * are kept by sessiontree: a tool turn, a second turn, a time travel back to the end of the first
 * turn with another question (the second turn stays, on a branch of its own), and the thread's
 * checkpoints listed. Everything is kept in `examples-graphs.db`.
 *
 *   npx tsx examples/langgraph.ts                  against a loopback fake of the OpenAI API
 *   OPENAI_API_KEY=sk-… npx tsx examples/langgraph.ts    against OpenAI
 *
 * Then look at the tree: `npx sessiontree view`, or export the thread's session and run
 * `sessiontree tree <file>`.
 */
import type { BaseMessage } from "@langchain/core/messages";
// In your project: import { SessionTreeSaver } from "sessiontree/langgraph";
import { SessionTreeSaver } from "../src/adapters/langgraph/index.js";
import { say, weatherGraph } from "../test/adapters/fixtures/langgraph-graph.js";
import { startFakeOpenAi } from "../test/agent/fixtures/fake-openai.js";

const realKey = process.env.OPENAI_API_KEY;
const fake = realKey ? undefined : await startFakeOpenAi({ roleDelta: true });
const baseURL = fake ? fake.url : "https://api.openai.com/v1";

// The one line that changes: `new MemorySaver()` becomes
const checkpointer = new SessionTreeSaver({
  store: "sqlite:examples-graphs.db",
  model: { provider: "openai", model: "gpt-4o-mini", api: "openai-completions" },
});
const graph = weatherGraph(baseURL, checkpointer, realKey ?? "sk-fake");
const thread = `example-${Date.now()}`;

const ask = async (text: string, checkpointId?: string) => {
  const { messages } = await say(graph, thread, text, checkpointId);
  console.log(`> ${text}\n${String((messages.at(-1) as BaseMessage).content)}`);
};
await ask(fake ? 'call weather {"city":"Oslo"}' : "What is the weather in Oslo? Use the tool.");
const afterFirstTurn = (await graph.getState({ configurable: { thread_id: thread } })).config.configurable
  ?.checkpoint_id as string;
await ask("Thanks! And tomorrow?");

// Time travel: back to the end of the first turn, with another question. Nothing is deleted:
// the second turn stays in the session, on a branch of its own.
await ask("Tell me a short joke instead.", afterFirstTurn);

console.log(`\nCheckpoints of thread ${thread} (newest first):`);
for await (const tuple of checkpointer.list({ configurable: { thread_id: thread } })) {
  const messages = (tuple.checkpoint.channel_values.messages ?? []) as BaseMessage[];
  const source = tuple.metadata?.source ?? "?";
  console.log(
    `  ${tuple.checkpoint.id}  ${source.padEnd(5)} step ${tuple.metadata?.step}  ${messages.length} messages`,
  );
}
await checkpointer.close();
await fake?.close();
