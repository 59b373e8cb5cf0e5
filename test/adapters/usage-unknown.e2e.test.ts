import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { after, describe, test } from "node:test";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { MessagesAnnotation, StateGraph } from "@langchain/langgraph";
import {
  calculateContextTokens,
  getLastAssistantUsage,
  SessionManager as PiSessionManager,
} from "@mariozechner/pi-coding-agent";
import { createChatStore } from "../../src/adapters/ai-sdk/index.js";
import { SessionTreeSaver } from "../../src/adapters/langgraph/index.js";
import { SessionTreeSession } from "../../src/adapters/openai-agents/index.js";
import { startFakeOpenAi } from "../agent/fixtures/fake-openai.js";
import { agentsRunner, turn } from "./fixtures/agents.js";
import { chatRoute, TestChat } from "./fixtures/chat-route.js";
import { startFakeOpenAiApi } from "./fixtures/fake-openai-api.js";
import { weatherGraph } from "./fixtures/langgraph-graph.js";
import { storeKinds } from "./fixtures/stores.js";

const OWNER = "usage";

interface StatsJson {
  total: { assistantMessages: number; usageUnknown: number; costUnknown: number; tokens: { total: number } };
}

/** `sessiontree stats --json <file>` run from source. */
function statsOf(file: string): StatsJson {
  const run = spawnSync(process.execPath, ["bin/sessiontree.js", "stats", "--json", file], {
    encoding: "utf8",
    env: { ...process.env, SESSIONTREE_FROM_SOURCE: "1", NO_COLOR: "1" },
  });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout) as StatsJson;
}

/**
 * pi 0.73.1 opens the file, and the sums its footer makes over every assistant message's usage
 * (and its context estimate) stay numbers: an unknown usage adds as zero there, as before.
 */
function assertPiSumsNumbers(file: string): void {
  const pi = PiSessionManager.open(file);
  let total = 0;
  for (const entry of pi.getEntries()) {
    if (entry.type !== "message" || entry.message.role !== "assistant") continue;
    const { usage } = entry.message;
    total += usage.input + usage.output + usage.cacheRead + usage.cacheWrite + usage.cost.total;
  }
  assert.ok(Number.isFinite(total), `pi's footer sum of ${file}`);
  const last = getLastAssistantUsage(pi.getEntries());
  assert.ok(last !== undefined && Number.isFinite(calculateContextTokens(last)), "pi's context estimate");
  assert.ok(pi.buildSessionContext().messages.length > 0);
}

/** Every reply's usage is unknown: none is counted as zero tokens or $0. */
function assertAllUnknown(file: string): void {
  const { total: usage } = statsOf(file);
  assert.ok(usage.assistantMessages > 0);
  assert.equal(usage.usageUnknown, usage.assistantMessages, JSON.stringify(usage));
  assert.equal(usage.tokens.total, 0);
  assertPiSumsNumbers(file);
}

describe("a reply the framework reports no usage for reads as usage unknown in `stats`, and pi still opens it", async () => {
  const responses = await startFakeOpenAiApi();
  const completions = await startFakeOpenAi({ roleDelta: true });
  const jsonl = storeKinds()[0];
  if (jsonl === undefined || jsonl.name !== "jsonl") throw new Error("the JSONL store kind comes first");
  const fileOf = (id: string) => {
    const file = jsonl.file(id);
    if (file === undefined) throw new Error(`no file for ${id}`);
    return file;
  };
  after(async () => {
    await responses.close();
    await completions.close();
    jsonl.cleanup();
  });

  test("openai-agents: the Runner's items carry no usage", async () => {
    const { runner, agent } = agentsRunner(responses.url);
    const session = new SessionTreeSession({ store: jsonl.location, owner: OWNER, sessionId: "agents" });
    await turn(runner, agent, 'call weather {"city":"Oslo"}', session);
    await turn(runner, agent, "and thanks", session);
    await session.close();
    assertAllUnknown(fileOf("agents"));
  });

  test("ai-sdk: UIMessages carry no usage", async () => {
    const chats = createChatStore({ store: jsonl.location, owner: OWNER });
    const chat = new TestChat("ai-sdk", [], chatRoute(responses.url, chats));
    await chat.sendMessage({ text: 'call weather {"city":"Bergen"}' });
    await chat.sendMessage({ text: "and thanks" });
    await chats.close();
    assertAllUnknown(fileOf("ai-sdk"));
  });

  test("langgraph: an AIMessage without usage_metadata is unknown; one with it is counted", async () => {
    const saver = new SessionTreeSaver({ store: jsonl.location, owner: OWNER });
    const graph = new StateGraph(MessagesAnnotation)
      .addNode("agent", async () => ({ messages: [new AIMessage("an answer with no usage")] }))
      .addEdge("__start__", "agent")
      .compile({ checkpointer: saver });
    await graph.invoke({ messages: [new HumanMessage("hi")] }, { configurable: { thread_id: "graph" } });
    assertAllUnknown(fileOf("graph"));

    // ChatOpenAI reports the fake's streamed usage (usage_metadata): it is kept, with no cost.
    const counted = weatherGraph(completions.url, saver);
    await counted.invoke({ messages: [new HumanMessage("hello")] }, { configurable: { thread_id: "known" } });
    await saver.close();
    const { total: usage } = statsOf(fileOf("known"));
    assert.equal(usage.assistantMessages, 1);
    assert.equal(usage.usageUnknown, 0);
    assert.equal(usage.costUnknown, 1, "LangChain reports tokens, not prices");
    assert.ok(usage.tokens.total > 7, JSON.stringify(usage));
    assertPiSumsNumbers(fileOf("known"));
  });
});
