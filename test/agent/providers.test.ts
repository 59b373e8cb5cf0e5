import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { after, before, describe, test } from "node:test";
import {
  AgentSession,
  AnthropicProvider,
  OpenAiProvider,
  type ProviderEvent,
  type ProviderRequest,
} from "../../src/agent/index.js";
import type { AssistantMessage } from "../../src/core/messages.js";
import { SessionManager } from "../../src/session/session-manager.js";
import { testTools } from "./fixtures/tools.js";

type Handler = (body: string, req: IncomingMessage, res: ServerResponse) => void;
let handler: Handler = () => undefined;
let baseUrl = "";
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => handler(Buffer.concat(chunks).toString("utf8"), req, res));
});
before(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
after(() => server.close());

const sse = (res: ServerResponse, events: Array<[string, unknown]>) => {
  res.writeHead(200, { "content-type": "text/event-stream" });
  // Split mid-event on purpose: the parser must reassemble across chunks.
  const text = events.map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`).join("");
  res.write(text.slice(0, 37));
  res.end(text.slice(37));
};

const request: ProviderRequest = {
  model: "m",
  systemPrompt: "s",
  messages: [{ role: "user", content: "hi" }],
  tools: [],
  thinkingLevel: "off",
};

async function collect(stream: AsyncIterable<ProviderEvent>): Promise<ProviderEvent[]> {
  const out: ProviderEvent[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

describe("AnthropicProvider against a loopback server", () => {
  test("streams thinking (with signature), text and a tool call; sends the key and version headers", async () => {
    let seen: { headers: IncomingMessage["headers"]; body: string; url?: string } | undefined;
    handler = (body, req, res) => {
      seen = { headers: req.headers, body, url: req.url };
      sse(res, [
        [
          "message_start",
          { type: "message_start", message: { usage: { input_tokens: 12, output_tokens: 1 } } },
        ],
        [
          "content_block_start",
          { type: "content_block_start", index: 0, content_block: { type: "thinking" } },
        ],
        [
          "content_block_delta",
          { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "hmm" } },
        ],
        [
          "content_block_delta",
          { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "sig" } },
        ],
        ["content_block_start", { type: "content_block_start", index: 1, content_block: { type: "text" } }],
        [
          "content_block_delta",
          { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "Let me look." } },
        ],
        [
          "content_block_start",
          {
            type: "content_block_start",
            index: 2,
            content_block: { type: "tool_use", id: "tu_1", name: "echo" },
          },
        ],
        [
          "content_block_delta",
          {
            type: "content_block_delta",
            index: 2,
            delta: { type: "input_json_delta", partial_json: '{"te' },
          },
        ],
        [
          "content_block_delta",
          {
            type: "content_block_delta",
            index: 2,
            delta: { type: "input_json_delta", partial_json: 'xt":"x"}' },
          },
        ],
        [
          "message_delta",
          { type: "message_delta", delta: { stop_reason: "tool_use" }, usage: { output_tokens: 30 } },
        ],
        ["message_stop", { type: "message_stop" }],
      ]);
    };
    const provider = new AnthropicProvider({ baseUrl, apiKey: "k-123" });
    const events = await collect(provider.stream(request));
    assert.equal(seen?.url, "/v1/messages");
    assert.equal(seen?.headers["x-api-key"], "k-123");
    assert.equal(seen?.headers["anthropic-version"], "2023-06-01");
    assert.equal(seen?.body, provider.requestBody(request).body);
    assert.deepEqual(
      events.map((e) => e.type),
      ["thinking_delta", "thinking_delta", "text_delta", "tool_call", "done"],
    );
    assert.deepEqual(events[3], { type: "tool_call", id: "tu_1", name: "echo", arguments: { text: "x" } });
    const done = events[4] as Extract<ProviderEvent, { type: "done" }>;
    assert.equal(done.stopReason, "toolUse");
    assert.equal(done.usage.input, 12);
    assert.equal(done.usage.output, 30);
  });

  test("an agent run stores the signed thinking block and sends it back on the next request", async () => {
    const bodies: string[] = [];
    handler = (body, _req, res) => {
      bodies.push(body);
      sse(res, [
        ["message_start", { type: "message_start", message: { usage: { input_tokens: 1 } } }],
        [
          "content_block_start",
          { type: "content_block_start", index: 0, content_block: { type: "thinking" } },
        ],
        [
          "content_block_delta",
          { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "t" } },
        ],
        [
          "content_block_delta",
          { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "S1" } },
        ],
        ["content_block_start", { type: "content_block_start", index: 1, content_block: { type: "text" } }],
        [
          "content_block_delta",
          { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "ok" } },
        ],
        [
          "message_delta",
          { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 2 } },
        ],
        ["message_stop", { type: "message_stop" }],
      ]);
    };
    const manager = SessionManager.inMemory();
    const agent = await AgentSession.open({
      session: manager,
      providers: [new AnthropicProvider({ baseUrl, apiKey: "k" })],
      defaultModel: { provider: "anthropic", modelId: "claude-test" },
      tools: testTools(),
    });
    await agent.prompt("one");
    await agent.prompt("two");
    const stored = (manager.getBranch()[1] as { message: AssistantMessage }).message;
    assert.deepEqual(stored.content[0], { type: "thinking", thinking: "t", thinkingSignature: "S1" });
    assert.equal(stored.api, "anthropic-messages");
    const second = JSON.parse(bodies[1] as string) as {
      messages: Array<{ role: string; content: unknown[] }>;
    };
    assert.deepEqual(second.messages[1]?.content[0], { type: "thinking", thinking: "t", signature: "S1" });
  });
});

describe("OpenAiProvider against a loopback server", () => {
  test("an HTTP error becomes an error event; the agent stores the reply with stopReason error", async () => {
    handler = (_body, req, res) => {
      assert.equal(req.headers.authorization, "Bearer sk-test");
      res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: "bad request" } }));
    };
    const manager = SessionManager.inMemory();
    const agent = await AgentSession.open({
      session: manager,
      providers: [new OpenAiProvider({ baseUrl: `${baseUrl}/v1`, apiKey: "sk-test" })],
      defaultModel: { provider: "openai", modelId: "gpt-test" },
    });
    const reply = await agent.prompt("hi");
    assert.equal(reply?.stopReason, "error");
    assert.match(reply?.errorMessage ?? "", /HTTP 400: .*bad request/);
    assert.equal(manager.getEntries().length, 2);
  });

  test("an abort while waiting for the server stores an aborted reply", async () => {
    handler = () => undefined; // never answers
    const manager = SessionManager.inMemory();
    const agent = await AgentSession.open({
      session: manager,
      providers: [new OpenAiProvider({ baseUrl: `${baseUrl}/v1`, apiKey: "sk-test" })],
      defaultModel: { provider: "openai", modelId: "gpt-test" },
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const reply = await agent.prompt("hi", { signal: controller.signal });
    assert.equal(reply?.stopReason, "aborted");
    server.closeAllConnections();
  });
});
