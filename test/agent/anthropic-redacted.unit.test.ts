/**
 * Redacted thinking from Anthropic's stream: kept in pi-ai's shape (a thinking block marked
 * `redacted`, the opaque data in its signature) and sent back as `redacted_thinking` to the model
 * that made it, never to another.
 */
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import { AssistantBuilder } from "../../src/agent/assistant-builder.js";
import { anthropicPayload } from "../../src/agent/convert/anthropic-payload.js";
import { AnthropicProvider } from "../../src/agent/providers/anthropic.js";

const EVENTS = [
  { type: "message_start", message: { usage: { input_tokens: 5, output_tokens: 1 } } },
  { type: "content_block_start", index: 0, content_block: { type: "redacted_thinking", data: "OPAQUE" } },
  { type: "content_block_stop", index: 0 },
  { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } },
  { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "done" } },
  { type: "content_block_stop", index: 1 },
  { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 3 } },
  { type: "message_stop" },
];

describe("redacted thinking through the Anthropic provider", () => {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      for (const event of EVENTS) res.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
      res.end();
    });
  });
  let baseUrl = "";
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  test("is kept in pi-ai's shape and goes back only to its own model", async () => {
    const provider = new AnthropicProvider({ baseUrl, apiKey: "test" });
    const request = {
      model: "claude-a",
      systemPrompt: "",
      messages: [],
      tools: [],
      thinkingLevel: "medium" as const,
    };
    const builder = new AssistantBuilder(provider, "claude-a");
    for await (const event of provider.stream({ ...request, messages: [{ role: "user", content: "hi" }] }))
      builder.apply(event);
    const reply = builder.finish();
    assert.deepEqual(reply.content, [
      { type: "thinking", thinking: "[Reasoning redacted]", thinkingSignature: "OPAQUE", redacted: true },
      { type: "text", text: "done" },
    ]);
    const history = [
      { role: "user" as const, content: "hi" },
      reply,
      { role: "user" as const, content: "more" },
    ];
    const sentTo = (model: string) =>
      (
        anthropicPayload({ ...request, model, messages: history }).payload.messages as Array<{
          content: unknown[];
        }>
      )[1]?.content;
    assert.deepEqual(sentTo("claude-a"), [
      { type: "redacted_thinking", data: "OPAQUE" },
      { type: "text", text: "done" },
    ]);
    assert.deepEqual(sentTo("claude-b"), [{ type: "text", text: "done" }]);
  });
});
