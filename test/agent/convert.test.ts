import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { anthropicBody, anthropicPayload } from "../../src/agent/convert/anthropic-payload.js";
import { MISSING_RESULT_TEXT, toLlmMessages } from "../../src/agent/convert/llm-messages.js";
import { openAiBody, openAiPayload } from "../../src/agent/convert/openai-payload.js";
import type { ProviderRequest } from "../../src/agent/index.js";
import type { AgentMessage, AssistantMessage } from "../../src/core/messages.js";

const assistant = (content: AssistantMessage["content"], stopReason = "toolUse"): AssistantMessage => ({
  role: "assistant",
  content,
  provider: "openai",
  model: "m",
  stopReason,
  timestamp: 2,
});
const call = (id: string, name = "read") => ({
  type: "toolCall" as const,
  id,
  name,
  arguments: { path: "a.ts", opts: { b: 1, a: 2 } },
});
const result = (id: string, text = "ok") => ({
  role: "toolResult" as const,
  toolCallId: id,
  toolName: "read",
  content: [{ type: "text" as const, text }],
  isError: false,
  timestamp: 3,
});

function request(messages: AgentMessage[]): ProviderRequest {
  return { model: "m", systemPrompt: "sys", messages, tools: [], thinkingLevel: "off" };
}

describe("provider conversion", () => {
  test("a tool call without a result gets a synthesized aborted result, and it is reported", () => {
    const { messages, repairs } = toLlmMessages([
      { role: "user", content: "hi", timestamp: 1 },
      assistant([call("c1"), call("c2")]),
      result("c1"),
      { role: "user", content: "next", timestamp: 4 },
    ]);
    assert.deepEqual(
      messages.map((m) => (m.role === "toolResult" ? `${m.role}:${m.toolCallId}` : m.role)),
      ["user", "assistant", "toolResult:c1", "toolResult:c2", "user"],
    );
    assert.deepEqual(messages[3]?.content, [{ type: "text", text: MISSING_RESULT_TEXT }]);
    assert.deepEqual(
      repairs.map((r) => [r.code, r.toolCallId]),
      [["missing_tool_result", "c2"]],
    );
  });

  test("an orphaned tool result becomes user text; a duplicate is dropped; failed replies are left out", () => {
    const { messages, repairs } = toLlmMessages([
      { role: "user", content: "hi", timestamp: 1 },
      result("ghost", "from nowhere"),
      assistant([call("c1")]),
      result("c1"),
      result("c1"),
      assistant([{ type: "text", text: "partial" }], "aborted"),
      { role: "user", content: "again", timestamp: 5 },
    ]);
    assert.deepEqual(
      messages.map((m) => m.role),
      ["user", "user", "assistant", "toolResult", "user"],
    );
    assert.match(JSON.stringify(messages[1]?.content), /from nowhere/);
    assert.deepEqual(
      repairs.map((r) => r.code),
      ["orphan_tool_result", "duplicate_tool_result", "skipped_failed_assistant"],
    );
  });

  test("the OpenAI payload pairs every tool_call with a tool message, whatever the session holds", () => {
    const { payload } = openAiPayload(
      request([{ role: "user", content: "x" }, assistant([call("c1")]), result("zzz")]),
    );
    const messages = payload.messages as Array<{
      role: string;
      tool_calls?: Array<{ id: string }>;
      tool_call_id?: string;
    }>;
    const callIds = messages.flatMap((m) => m.tool_calls?.map((c) => c.id) ?? []);
    const resultIds = messages.flatMap((m) => (m.role === "tool" ? [m.tool_call_id] : []));
    assert.deepEqual(callIds, ["c1"]);
    assert.deepEqual(resultIds, ["c1"]);
    assert.equal(messages[0]?.role, "system");
  });

  test("the Anthropic payload alternates roles, carries results as tool_result blocks, sanitizes ids", () => {
    const { payload } = anthropicPayload(
      request([
        { role: "user", content: "x" },
        { role: "compactionSummary", summary: "S", tokensBefore: 10, timestamp: 1 },
        assistant([{ type: "text", text: "t" }, call("call|1")]),
        result("call|1"),
        { role: "user", content: "y" },
      ]),
    );
    const messages = payload.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>;
    assert.deepEqual(
      messages.map((m) => m.role),
      ["user", "assistant", "user"],
    );
    assert.equal(messages[0]?.content.length, 2);
    assert.match(String(messages[0]?.content[1]?.text), /<summary>\nS\n<\/summary>/);
    assert.deepEqual(messages[1]?.content[1], {
      type: "tool_use",
      id: "call_1",
      name: "read",
      input: call("x").arguments,
    });
    assert.equal(messages[2]?.content[0]?.type, "tool_result");
    assert.equal(messages[2]?.content[0]?.tool_use_id, "call_1");
    assert.equal(payload.system, "sys");
  });

  test("same context, byte-identical body — whatever order the keys were stored in", () => {
    const a: AgentMessage[] = [
      { role: "user", content: "x", timestamp: 1 },
      assistant([call("c1")]),
      result("c1"),
    ];
    const reordered = JSON.parse(JSON.stringify(a), (_k, v) =>
      v && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).reverse()) : v,
    ) as AgentMessage[];
    assert.equal(openAiBody(request(a)).body, openAiBody(request(reordered)).body);
    assert.equal(anthropicBody(request(a)).body, anthropicBody(request(reordered)).body);
    // Timestamps are not part of the request: a resumed run re-reads them from the file.
    const later = a.map((m) => ({ ...m, timestamp: 99 })) as AgentMessage[];
    assert.equal(openAiBody(request(a)).body, openAiBody(request(later)).body);
  });

  test("custom messages and branch summaries reach the model as user text with pi's wording", () => {
    const { messages } = toLlmMessages([
      { role: "custom", customType: "note", content: "remember X", display: true, timestamp: 1 },
      { role: "branchSummary", summary: "tried Y", fromId: "abc", timestamp: 2 },
    ]);
    assert.deepEqual(messages[0]?.content, [{ type: "text", text: "remember X" }]);
    assert.match(
      JSON.stringify(messages[1]?.content),
      /summary of a branch that this conversation came back from/,
    );
  });
});
