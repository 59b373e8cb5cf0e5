/**
 * A 200 that is not an event stream: a proxy's or a captive portal's login page, a base URL that
 * points at a web site, a server that ignored `stream: true` and sent one JSON completion. It fails
 * the same way every time: the run ends at once with an error that says what came (not three
 * retries ending in "the stream ended before its final event"). A stream sent without a content
 * type is still read.
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { after, before, describe, test } from "node:test";
import { AgentSession, AnthropicProvider, OpenAiProvider } from "../../src/agent/index.js";
import { SessionManager } from "../../src/session/session-manager.js";

type Api = "openai" | "anthropic";
interface Answer {
  headers: Record<string, string>;
  body: string;
}

let server: Server;
let url = "";
let answer: Answer = { headers: {}, body: "" };
let requests = 0;

before(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      requests++;
      res.writeHead(200, answer.headers);
      res.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function promptWith(api: Api, served: Answer) {
  answer = served;
  requests = 0;
  const provider =
    api === "openai"
      ? new OpenAiProvider({ baseUrl: `${url}/v1`, apiKey: "sk-test" })
      : new AnthropicProvider({ baseUrl: url, apiKey: "k-test" });
  const agent = await AgentSession.open({
    session: SessionManager.inMemory(),
    providers: [provider],
    defaultModel: { provider: api, modelId: `${api}-test` },
    retry: { baseDelayMs: 1, maxRetries: 3 },
  });
  return agent.prompt("hello");
}

const LOGIN_PAGE = {
  headers: { "content-type": "text/html; charset=utf-8" },
  body: "<!doctype html><title>Sign in to the network</title>",
};
const WHOLE_COMPLETION = {
  headers: { "content-type": "application/json" },
  body: JSON.stringify({
    id: "chatcmpl-1",
    object: "chat.completion",
    choices: [{ index: 0, message: { role: "assistant", content: "hi" }, finish_reason: "stop" }],
  }),
};
const STREAM: Record<Api, string> = {
  openai: [
    { choices: [{ index: 0, delta: { role: "assistant", content: "hi there" }, finish_reason: null }] },
    { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
  ]
    .map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`)
    .concat("data: [DONE]\n\n")
    .join(""),
  anthropic: [
    { type: "message_start", message: { usage: { input_tokens: 5, output_tokens: 1 } } },
    { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
    { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "hi there" } },
    { type: "content_block_stop", index: 0 },
    { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 3 } },
    { type: "message_stop" },
  ]
    .map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`)
    .join(""),
};

for (const api of ["openai", "anthropic"] as const) {
  describe(`a 200 that is not an event stream (${api})`, () => {
    test("an HTML page ends the run at once, and the error says what came", async () => {
      const reply = await promptWith(api, LOGIN_PAGE);
      assert.equal(reply?.stopReason, "error");
      assert.match(reply?.errorMessage ?? "", /text\/html.*not an event stream.*Sign in to the network/);
      assert.equal(requests, 1, "not retried");
    });

    test("one JSON answer to a streamed request ends the run at once", async () => {
      const reply = await promptWith(api, WHOLE_COMPLETION);
      assert.equal(reply?.stopReason, "error");
      assert.match(reply?.errorMessage ?? "", /application\/json, not an event stream/);
      assert.equal(requests, 1, "not retried");
    });

    test("an event stream without a content type is still read", async () => {
      const reply = await promptWith(api, { headers: {}, body: STREAM[api] });
      assert.equal(reply?.stopReason, "stop");
      assert.match(JSON.stringify(reply?.content), /hi there/);
    });
  });
}
