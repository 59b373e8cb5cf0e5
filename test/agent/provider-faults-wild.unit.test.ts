/**
 * Provider faults as the real APIs and networks produce them, against the agent layer through its
 * real providers (`AnthropicProvider`, `OpenAiProvider`) and a loopback server that plays one
 * scripted response per request and refuses (HTTP 400) what the real APIs refuse
 * (`fixtures/api-rules.ts`). Not repeated from provider-faults.unit.test.ts /
 * strict-provider.unit.test.ts: those cut streams at event boundaries and inject one fault per
 * kind; these cut inside an SSE event, stop at max_tokens inside a tool call, omit usage, abort
 * during the automatic compaction, reset the connection after the final event, start a second
 * prompt before the first run began, and walk an abort through each stage of a turn.
 *
 * Each test names its contract (docs/agent.md, the provider's documented behaviour, the SSE
 * spec). Eight of them failed before the fixes they came with (a cut SSE event read as a JSON
 * error, a cut tool call run, Ctrl-C ignored during compaction, no compaction without usage,
 * Anthropic's cumulative usage, a whole reply lost to a late reset, two runs at once); the others
 * are regression checks of behaviour no other test pins.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Type } from "@sinclair/typebox";
import {
  type AgentEvent,
  AgentSession,
  type AgentSessionOptions,
  type AgentTool,
  AnthropicProvider,
  defineTool,
  OpenAiProvider,
} from "../../src/agent/index.js";
import type { SessionEntry } from "../../src/core/entry.js";
import type { AssistantMessage } from "../../src/core/messages.js";
import { SessionManager } from "../../src/session/session-manager.js";
import { anthropicViolations, openAiViolations } from "./fixtures/api-rules.js";
import { testTools } from "./fixtures/tools.js";

type Json = Record<string, unknown>;
type Api = "openai" | "anthropic";

const dir = mkdtempSync(join(tmpdir(), "st-provider-faults-"));
after(() => rmSync(dir, { recursive: true, force: true }));

// ---- a scripted loopback server for both APIs ----

interface Exchange {
  api: Api;
  body: string;
  payload: Json;
  req: IncomingMessage;
  res: ServerResponse;
}
/** One response; returns nothing, may leave the response open (a stall). */
type Script = (x: Exchange) => void;

interface Fake {
  /** Base URLs for each provider. */
  anthropicUrl: string;
  openaiUrl: string;
  bodies: Json[];
  rejected: string[][];
  /** Scripts for the next requests, one each; a request with none gets a normal reply. */
  script: Script[];
  /** Responses left open by a stall; ended by `release()`. */
  open: Set<ServerResponse>;
  /** Called with each request (after it is recorded). */
  onRequest?: (x: Exchange) => void;
  release(): void;
  close(): Promise<void>;
}

async function startFake(): Promise<Fake> {
  const fake: Fake = {
    anthropicUrl: "",
    openaiUrl: "",
    bodies: [],
    rejected: [],
    script: [],
    open: new Set(),
    release() {
      for (const res of fake.open) res.socket?.destroy();
      fake.open.clear();
    },
    close: async () => undefined,
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const payload = JSON.parse(body) as Json;
      const api: Api = req.url?.endsWith("/v1/messages") ? "anthropic" : "openai";
      fake.bodies.push(payload);
      const violations = api === "anthropic" ? anthropicViolations(payload) : openAiViolations(payload);
      if (violations.length > 0) {
        fake.rejected.push(violations);
        res.writeHead(400, { "content-type": "application/json" });
        const error = { type: "invalid_request_error", message: violations.join("; ") };
        res.end(JSON.stringify(api === "anthropic" ? { type: "error", error } : { error }));
        return;
      }
      const x: Exchange = { api, body, payload, req, res };
      fake.onRequest?.(x);
      (fake.script.shift() ?? normalReply)(x);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  fake.anthropicUrl = `http://127.0.0.1:${port}`;
  fake.openaiUrl = `http://127.0.0.1:${port}/v1`;
  fake.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake;
}

// SSE writers, in each API's wire format.

function sseHead(res: ServerResponse, headers: Record<string, string> = {}) {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", ...headers });
}
const anthropicEvent = (data: Json) => `event: ${String(data.type)}\ndata: ${JSON.stringify(data)}\n\n`;
const openaiEvent = (data: Json | string) =>
  `data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;

const A = {
  start: (input = 25, output = 1) => ({
    type: "message_start",
    message: {
      id: "msg_01",
      type: "message",
      role: "assistant",
      content: [],
      model: "claude-test",
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: input, output_tokens: output },
    },
  }),
  textBlock: (index: number, text: string): Json[] => [
    { type: "content_block_start", index, content_block: { type: "text", text: "" } },
    { type: "content_block_delta", index, delta: { type: "text_delta", text } },
    { type: "content_block_stop", index },
  ],
  toolStart: (index: number, id: string, name: string) => ({
    type: "content_block_start",
    index,
    content_block: { type: "tool_use", id, name, input: {} },
  }),
  json: (index: number, partial: string) => ({
    type: "content_block_delta",
    index,
    delta: { type: "input_json_delta", partial_json: partial },
  }),
  blockStop: (index: number) => ({ type: "content_block_stop", index }),
  delta: (stop: string, usage: Json = { output_tokens: 9 }) => ({
    type: "message_delta",
    delta: { stop_reason: stop, stop_sequence: null },
    usage,
  }),
  stop: { type: "message_stop" },
};

const O = {
  chunk: (delta: Json, finish: string | null = null) => ({
    id: "chatcmpl-1",
    object: "chat.completion.chunk",
    model: "gpt-test",
    choices: [{ index: 0, delta, finish_reason: finish }],
  }),
  usage: (prompt = 25, completion = 9) => ({
    id: "chatcmpl-1",
    object: "chat.completion.chunk",
    model: "gpt-test",
    choices: [],
    usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
  }),
};

/** The text of the last user turn of a request (tool results excluded). */
function lastUserText(x: Exchange): string {
  const messages = x.payload.messages as Json[];
  const last = messages[messages.length - 1] as Json;
  if (typeof last.content === "string") return last.role === "user" ? last.content : "";
  return (last.content as Json[])
    .filter((b) => b.type === "text")
    .map((b) => String(b.text))
    .join("\n");
}

/** A complete, well-formed text reply in the request's API ("You said: …" / "Tool said"). */
function normalReply(x: Exchange, options: { usage?: boolean } = {}): void {
  const text = lastUserText(x);
  const answer = x.body.includes("<conversation>")
    ? "## Goal\nsummary of the conversation"
    : text
      ? `You said: ${text.slice(0, 200)}`
      : "Tool said: ok";
  const input = Math.ceil(x.body.length / 4);
  sseHead(x.res);
  if (x.api === "anthropic") {
    for (const e of [A.start(input), ...A.textBlock(0, answer), A.delta("end_turn"), A.stop])
      x.res.write(anthropicEvent(e));
  } else {
    x.res.write(openaiEvent(O.chunk({ role: "assistant", content: "" })));
    x.res.write(openaiEvent(O.chunk({ content: answer })));
    x.res.write(openaiEvent(O.chunk({}, "stop")));
    if (options.usage !== false) x.res.write(openaiEvent(O.usage(input)));
    x.res.write(openaiEvent("[DONE]"));
  }
  x.res.end();
}

/** A well-formed reply with one tool call, its arguments streamed in two pieces. */
function toolCallReply(x: Exchange, id: string, name: string, args: Json): void {
  const json = JSON.stringify(args);
  const half = Math.floor(json.length / 2);
  sseHead(x.res);
  if (x.api === "anthropic") {
    const events = [
      A.start(),
      A.toolStart(0, id, name),
      A.json(0, json.slice(0, half)),
      A.json(0, json.slice(half)),
      A.blockStop(0),
      A.delta("tool_use"),
      A.stop,
    ];
    for (const e of events) x.res.write(anthropicEvent(e));
  } else {
    const first = { index: 0, id, type: "function", function: { name, arguments: json.slice(0, half) } };
    x.res.write(openaiEvent(O.chunk({ role: "assistant", content: null, tool_calls: [first] })));
    x.res.write(
      openaiEvent(O.chunk({ tool_calls: [{ index: 0, function: { arguments: json.slice(half) } }] })),
    );
    x.res.write(openaiEvent(O.chunk({}, "tool_calls")));
    x.res.write(openaiEvent(O.usage()));
    x.res.write(openaiEvent("[DONE]"));
  }
  x.res.end();
}

let fake: Fake;
before(async () => {
  fake = await startFake();
});
after(async () => {
  fake.release();
  await fake.close();
});

// ---- the agent ----

interface Setup {
  manager: SessionManager;
  agent: AgentSession;
  events: AgentEvent[];
  ran: Array<{ tool: string; args: unknown }>;
}

/** A tool whose arguments are all optional, as `ls`, or a deploy whose target has a default. */
function deployTool(ran: Setup["ran"]): AgentTool {
  return defineTool({
    name: "deploy",
    description: "Deploy the build (to production unless a target is given)",
    parameters: Type.Object({ target: Type.Optional(Type.String()) }),
    execute: async (args) => {
      ran.push({ tool: "deploy", args });
      return { content: `deployed to ${args.target ?? "production"}` };
    },
  }) as AgentTool;
}

function providerFor(api: Api) {
  return api === "openai"
    ? new OpenAiProvider({ baseUrl: fake.openaiUrl, apiKey: "sk-test" })
    : new AnthropicProvider({ baseUrl: fake.anthropicUrl, apiKey: "k-test" });
}

async function agentOn(api: Api, options: Partial<AgentSessionOptions> = {}): Promise<Setup> {
  const manager = SessionManager.create(dir, join(dir, `s-${Math.random().toString(36).slice(2)}`));
  const ran: Setup["ran"] = [];
  const tools = [
    ...testTools().map((tool) => ({
      ...tool,
      execute: (args: unknown, context: Parameters<typeof tool.execute>[1]) => {
        ran.push({ tool: tool.name, args });
        return tool.execute(args as never, context);
      },
    })),
    deployTool(ran),
  ] as AgentTool[];
  const agent = await AgentSession.open({
    session: manager,
    providers: [providerFor(api)],
    defaultModel: { provider: api, modelId: `${api}-test` },
    tools,
    retry: { baseDelayMs: 1, maxDelayMs: 2000, maxRetries: 2 },
    ...options,
  });
  const events: AgentEvent[] = [];
  agent.subscribe((e) => {
    if (e.type !== "message_update" && e.type !== "message_start") events.push(e);
  });
  fake.script.length = 0;
  fake.rejected.length = 0;
  fake.onRequest = undefined;
  return { manager, agent, events, ran };
}

const roles = (manager: SessionManager) =>
  manager.getBranch().map((e: SessionEntry) => (e.type === "message" ? (e.message.role as string) : e.type));

const assistants = (manager: SessionManager) =>
  manager
    .getEntries()
    .flatMap((e: SessionEntry) =>
      e.type === "message" && e.message.role === "assistant" ? [e.message as AssistantMessage] : [],
    );

/** Every tool call on the path has exactly one result after it (what a strict API checks). */
function danglingCalls(manager: SessionManager): string[] {
  const open = new Set<string>();
  for (const e of manager.getBranch()) {
    if (e.type !== "message") continue;
    const m = e.message as unknown as Json;
    if (m.role === "assistant")
      for (const b of m.content as Json[]) if (b.type === "toolCall") open.add(String(b.id));
    if (m.role === "toolResult") open.delete(String(m.toolCallId));
  }
  return [...open];
}

// ---- 1. a stream the server closes in the middle of an SSE event ----

/**
 * Contract: docs/agent.md "Faults and retries": a stream cut short is retried, like a dropped
 * connection, and is reported as "The provider stream ended before …". The WHATWG SSE spec: an
 * event not ended by a blank line when the stream ends is not dispatched ("If the file ends in the
 * middle of an event, before the final empty line, the incomplete event is not dispatched").
 *
 * A server process that dies or a proxy that closes the connection mid-write (a clean FIN, so
 * fetch sees a normal end of body) leaves the last event half-written. readSse dispatches it
 * anyway, JSON.parse throws, and the provider reports a JSON syntax error. Whether that is retried
 * then depends on where the JSON was cut: "Unterminated string …" happens to match the DROPPED
 * pattern's "terminated"; "Expected ',' or '}' after property value …" does not, so the run fails
 * at once with a JSON parser message.
 */
for (const api of ["anthropic", "openai"] as const) {
  describe(`${api}: the server closes the stream in the middle of an SSE event`, () => {
    const cutAfterAValue = (x: Exchange) => {
      sseHead(x.res);
      if (x.api === "anthropic") {
        x.res.write(anthropicEvent(A.start()));
        x.res.write(
          anthropicEvent({
            type: "content_block_start",
            index: 0,
            content_block: { type: "text", text: "" },
          }),
        );
        // the next event, cut after a complete value: {"type":"content_block_delta","index":0
        x.res.write('event: content_block_delta\ndata: {"type":"content_block_delta","index":0');
      } else {
        x.res.write(openaiEvent(O.chunk({ role: "assistant", content: "" })));
        x.res.write(openaiEvent(O.chunk({ content: "Once upon" })));
        x.res.write('data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000');
      }
      x.res.end();
    };

    test("it is retried as a stream cut short, then the retry's reply is the answer", async () => {
      const { agent, events, manager } = await agentOn(api);
      fake.script.push(cutAfterAValue);
      const reply = await agent.prompt("tell me a story");
      const retries = events.filter((e) => e.type === "retry");
      assert.equal(
        retries.length,
        1,
        `a cut stream is retried; got ${reply?.stopReason}: ${reply?.errorMessage ?? ""}`,
      );
      assert.equal(reply?.stopReason, "stop");
      assert.deepEqual(roles(manager), ["user", "assistant"]);
    });

    test("with retries off, the error says the stream ended early (not a JSON parser message)", async () => {
      const { agent } = await agentOn(api, { retry: false });
      fake.script.push(cutAfterAValue);
      const reply = await agent.prompt("tell me a story");
      assert.equal(reply?.stopReason, "error");
      assert.match(reply?.errorMessage ?? "", /ended before/, reply?.errorMessage);
    });
  });
}

// ---- 2. the output limit is reached inside a tool call's arguments ----

/**
 * Contract: docs/agent.md: partial tool calls are "never run". Anthropic's tool-use docs: when a
 * response hits max_tokens and "the truncated response contains an incomplete tool use block, you'll
 * need to retry the request with a higher max_tokens value to get the full tool use" — the cut
 * call is not a call to execute. OpenAI's finish_reason "length" means the same for tool_calls.
 *
 * The providers keep unparsable arguments as `{ _unparsedArguments: "…" }` "so the tool layer can
 * answer with a validation error", and stop as "length", which the loop treats as a finished turn
 * whose calls it runs. TypeBox objects accept extra properties, so a tool whose parameters are all
 * optional (`ls`, or this `deploy` whose target defaults to production) passes validation and runs
 * with its defaults: the cut call `deploy {"target":"stag…` deploys to production.
 */
for (const api of ["anthropic", "openai"] as const) {
  describe(`${api}: max_tokens / finish_reason "length" inside a tool call's arguments`, () => {
    const cutAtLimit = (x: Exchange) => {
      sseHead(x.res);
      const partial = '{"target": "stag';
      if (x.api === "anthropic") {
        const events = [
          A.start(),
          ...A.textBlock(0, "Deploying."),
          A.toolStart(1, "toolu_01Cut", "deploy"),
          A.json(1, partial),
          A.blockStop(1),
          A.delta("max_tokens", { output_tokens: 64 }),
          A.stop,
        ];
        for (const e of events) x.res.write(anthropicEvent(e));
      } else {
        const call = {
          index: 0,
          id: "call_cut1",
          type: "function",
          function: { name: "deploy", arguments: "" },
        };
        x.res.write(openaiEvent(O.chunk({ role: "assistant", content: null, tool_calls: [call] })));
        x.res.write(openaiEvent(O.chunk({ tool_calls: [{ index: 0, function: { arguments: partial } }] })));
        x.res.write(openaiEvent(O.chunk({}, "length")));
        x.res.write(openaiEvent(O.usage(25, 64)));
        x.res.write(openaiEvent("[DONE]"));
      }
      x.res.end();
    };

    test("the cut call is not executed (not even a tool whose arguments are all optional)", async () => {
      const { agent, ran, manager } = await agentOn(api);
      fake.script.push(cutAtLimit);
      await agent.prompt("deploy to staging");
      assert.deepEqual(ran, [], "a tool call cut by the output limit ran");
      // Whatever is stored, the history stays a valid pair set and the next request is accepted.
      assert.deepEqual(danglingCalls(manager), []);
      const next = await agent.prompt("what happened?");
      assert.equal(next?.stopReason, "stop", next?.errorMessage);
      assert.deepEqual(fake.rejected, []);
    });

    test("a tool with required arguments answers the cut call with an error the model reads (regression)", async () => {
      const { agent, ran, manager } = await agentOn(api);
      fake.script.push((x) => {
        sseHead(x.res);
        if (x.api === "anthropic") {
          const events = [
            A.start(),
            A.toolStart(0, "toolu_01Echo", "echo"),
            A.json(0, '{"text": "a long'),
            A.blockStop(0),
            A.delta("max_tokens"),
            A.stop,
          ];
          for (const e of events) x.res.write(anthropicEvent(e));
        } else {
          const call = {
            index: 0,
            id: "call_echo1",
            type: "function",
            function: { name: "echo", arguments: '{"text": "a long' },
          };
          x.res.write(openaiEvent(O.chunk({ tool_calls: [call] })));
          x.res.write(openaiEvent(O.chunk({}, "length")));
          x.res.write(openaiEvent("[DONE]"));
        }
        x.res.end();
      });
      await agent.prompt("echo something long");
      assert.deepEqual(ran, []);
      assert.deepEqual(danglingCalls(manager), []);
      assert.deepEqual(fake.rejected, []);
      const next = await agent.prompt("again");
      assert.equal(next?.stopReason, "stop", next?.errorMessage);
      assert.deepEqual(fake.rejected, []);
    });
  });
}

// ---- 3. Ctrl-C during the automatic compaction ----

/**
 * Contract: `prompt(text, { signal })` — the signal stops the run (docs/agent.md; the chat's
 * Ctrl-C "stops a reply or a running tool"). The automatic compaction runs inside `prompt()`, on
 * the chat's Ctrl-C path too (chat-loop.ts passes its controller's signal to `agent.prompt`).
 *
 * `AgentSession.run` calls `maybeAutoCompact()` with no signal and `compact()` is called without
 * one, so the summary request cannot be stopped: a summary stream that stalls keeps `prompt()`
 * pending after the abort (for ever, or until undici's 5-minute body timeout).
 */
describe("openai: the signal during the automatic compaction", () => {
  test("an abort while the summary streams ends prompt() promptly", async () => {
    const { agent, events } = await agentOn("openai", {
      contextWindow: 3000,
      compaction: { keepRecentTokens: 300, reserveTokens: 1000 },
      retry: false,
    });
    const long = (tag: string) => `${tag} ${"lorem ipsum ".repeat(400)}`;
    await agent.prompt(long("one"));
    await agent.prompt(long("two"));
    let summaryAsked: () => void = () => undefined;
    const asked = new Promise<void>((resolve) => {
      summaryAsked = resolve;
    });
    fake.onRequest = (x) => {
      if (!x.body.includes("<conversation>")) return;
      // The summary stream starts, then stalls.
      fake.script.unshift((y) => {
        sseHead(y.res);
        y.res.write(openaiEvent(O.chunk({ content: "## Goal\n" })));
        fake.open.add(y.res);
        summaryAsked();
      });
    };
    const controller = new AbortController();
    const run = agent.prompt("three", { signal: controller.signal });
    const outcome = await Promise.race([
      asked.then(() => "asked"),
      run.then(() => "finished"),
      new Promise((resolve) => setTimeout(() => resolve("no summary request"), 10_000)),
    ]);
    assert.equal(outcome, "asked", "the automatic compaction asked for a summary");
    assert.ok(events.some((e) => e.type === "compaction_start"));
    controller.abort();
    const settled = await Promise.race([
      run.then(
        () => true,
        () => true,
      ),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 5_000)),
    ]);
    // Unblock the stalled summary so the run can end either way (then nothing is left running).
    fake.release();
    const reply = await run;
    assert.ok(settled, "prompt() still pending 5 s after the abort: the summary request ignores the signal");
    assert.equal(reply?.stopReason, "aborted");
  });
});

// ---- 4. usage missing or incomplete ----

/**
 * Contract: docs/agent.md "Compaction": the agent compacts before a prompt "when the context
 * exceeds contextWindow − reserveTokens", the context being "estimated as characters / 4, or
 * taken from the last assistant message's reported usage plus an estimate of what followed".
 *
 * An OpenAI-compatible server that does not send the usage chunk (many ignore
 * `stream_options.include_usage`; a proxy may drop it) leaves every reply with an all-zero usage,
 * which `estimateContextTokens` takes as a reported context of 0 tokens: the estimate stays near 0
 * whatever the session holds, the automatic compaction never starts, and the session grows until
 * the provider refuses it (context_length_exceeded). (pi's estimate has the same blind spot.)
 */
describe("openai: a server that reports no usage", () => {
  test("the automatic compaction still starts when the context is over the line", async () => {
    const { agent, events } = await agentOn("openai", {
      contextWindow: 3000,
      compaction: { keepRecentTokens: 300, reserveTokens: 1000 },
      retry: false,
    });
    const noUsage: Script = (x) => normalReply(x, { usage: false });
    const long = (tag: string) => `${tag} ${"lorem ipsum ".repeat(400)}`; // ~1,200 tokens each
    fake.script.push(noUsage, noUsage, noUsage, noUsage, noUsage);
    await agent.prompt(long("one"));
    await agent.prompt(long("two"));
    await agent.prompt(long("three"));
    // ~3,600 tokens of prompts alone (chars / 4), over 3000 − 1000.
    await agent.prompt("four");
    assert.ok(
      events.some((e) => e.type === "compaction_start"),
      "no automatic compaction: zero usage was taken as an empty context",
    );
  });
});

/**
 * Contract: Anthropic's streaming docs: "The token counts shown in the usage field of the
 * message_delta event are cumulative"; the final event carries the final counts (input and cache
 * counts included; gateways and proxies often send 0 in message_start). pi-ai takes input, output
 * and cache counts from message_delta when present. AnthropicProvider reads only `output_tokens`
 * there, so the stored usage keeps message_start's input count.
 */
describe("anthropic: usage completed in message_delta", () => {
  test("input and cache counts of message_delta are the stored usage", async () => {
    const { agent } = await agentOn("anthropic", { retry: false });
    fake.script.push((x) => {
      sseHead(x.res);
      const usage = {
        input_tokens: 1200,
        output_tokens: 9,
        cache_read_input_tokens: 800,
        cache_creation_input_tokens: 0,
      };
      for (const e of [A.start(0, 0), ...A.textBlock(0, "hello"), A.delta("end_turn", usage), A.stop])
        x.res.write(anthropicEvent(e));
      x.res.end();
    });
    const reply = await agent.prompt("hi");
    const usage = reply?.usage as Record<string, number>;
    assert.equal(reply?.stopReason, "stop");
    assert.deepEqual(
      { input: usage.input, output: usage.output, cacheRead: usage.cacheRead },
      { input: 1200, output: 9, cacheRead: 800 },
    );
  });
});

// ---- 5. retry hints and in-stream errors (regression checks not covered elsewhere) ----

describe("retry hints", () => {
  test("openai: retry-after-ms wins over retry-after (regression)", async () => {
    const { agent, events } = await agentOn("openai", { retry: { baseDelayMs: 1, maxRetries: 1 } });
    fake.script.push((x) => {
      x.res.writeHead(429, {
        "content-type": "application/json",
        "retry-after-ms": "40",
        "retry-after": "30",
        "x-ratelimit-reset-requests": "40ms",
      });
      x.res.end(
        JSON.stringify({
          error: { message: "Rate limit reached", type: "requests", code: "rate_limit_exceeded" },
        }),
      );
    });
    const reply = await agent.prompt("hello");
    assert.equal(reply?.stopReason, "stop", reply?.errorMessage);
    const retry = events.find((e) => e.type === "retry");
    assert.equal(retry?.type === "retry" && retry.delayMs, 40);
  });

  test("anthropic: a 529 with retry-after, then overloaded_error after a whole tool_use block: the tool runs once (regression)", async () => {
    const { agent, events, ran, manager } = await agentOn("anthropic", {
      retry: { baseDelayMs: 1, maxRetries: 3, maxDelayMs: 2000 },
    });
    fake.script.push(
      (x) => {
        x.res.writeHead(529, { "content-type": "application/json", "retry-after": "0.03" });
        x.res.end(
          JSON.stringify({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }),
        );
      },
      (x) => {
        sseHead(x.res);
        const events = [
          A.start(),
          A.toolStart(0, "toolu_01A", "echo"),
          A.json(0, '{"text":"x"}'),
          A.blockStop(0),
        ];
        for (const e of events) x.res.write(anthropicEvent(e));
        x.res.write(
          anthropicEvent({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }),
        );
        x.res.end();
      },
      (x) => toolCallReply(x, "toolu_01B", "echo", { text: "x" }),
    );
    const reply = await agent.prompt('call echo {"text":"x"}');
    assert.equal(reply?.stopReason, "stop", reply?.errorMessage);
    assert.deepEqual(
      events.flatMap((e) => (e.type === "retry" ? [e.delayMs] : [])),
      [30, 2],
    );
    assert.deepEqual(ran, [{ tool: "echo", args: { text: "x" } }]);
    assert.deepEqual(roles(manager), ["user", "assistant", "toolResult", "assistant"]);
    assert.deepEqual(fake.rejected, []);
  });

  for (const api of ["anthropic", "openai"] as const) {
    test(`${api}: a context overflow (400) is not retried, and its text reaches the caller (regression)`, async () => {
      const { agent, events, manager } = await agentOn(api, { retry: { baseDelayMs: 1, maxRetries: 3 } });
      const requests = fake.bodies.length;
      fake.script.push((x) => {
        x.res.writeHead(400, { "content-type": "application/json", "retry-after": "1" });
        const message =
          x.api === "anthropic"
            ? {
                type: "error",
                error: {
                  type: "invalid_request_error",
                  message: "prompt is too long: 213462 tokens > 200000 maximum",
                },
              }
            : {
                error: {
                  message: "This model's maximum context length is 128000 tokens.",
                  type: "invalid_request_error",
                  code: "context_length_exceeded",
                },
              };
        x.res.end(JSON.stringify(message));
      });
      const reply = await agent.prompt("huge");
      assert.equal(fake.bodies.length, requests + 1, "no retry loop");
      assert.equal(reply?.stopReason, "error");
      assert.match(reply?.errorMessage ?? "", /HTTP 400: .*(prompt is too long|context_length_exceeded)/);
      assert.ok(events.some((e) => e.type === "error" && /HTTP 400/.test(e.message)));
      assert.ok(events.some((e) => e.type === "prompt_rewound"));
      assert.deepEqual(roles(manager), [], "the failed prompt left the path");
    });
  }
});

// ---- 6. Ctrl-C at each stage of a turn ----

/**
 * Contract: docs/agent.md: the user message and an `aborted` assistant message are written;
 * a tool call never runs from a cut stream; every call on the path has a result; the session,
 * resumed by another process, continues with a request the strict API accepts.
 */
type Stage =
  | "before the first byte"
  | "inside the text"
  | "inside a tool call's arguments"
  | "during the retry wait";

for (const api of ["anthropic", "openai"] as const) {
  describe(`${api}: an abort at each stage leaves a session a strict API accepts`, () => {
    const stages: Stage[] = [
      "before the first byte",
      "inside the text",
      "inside a tool call's arguments",
      "during the retry wait",
    ];
    for (const stage of stages) {
      test(`${stage} (regression)`, async () => {
        const { agent, manager, ran } = await agentOn(api, {
          retry: { baseDelayMs: 60_000, maxDelayMs: 120_000 },
        });
        const controller = new AbortController();
        fake.script.push((x) => {
          if (stage === "during the retry wait") {
            x.res.writeHead(503, { "content-type": "application/json" });
            x.res.end("{}");
            return;
          }
          fake.open.add(x.res);
          if (stage === "before the first byte") return void setTimeout(() => controller.abort(), 20);
          sseHead(x.res);
          if (x.api === "anthropic") {
            x.res.write(anthropicEvent(A.start()));
            if (stage === "inside the text") {
              x.res.write(
                anthropicEvent({
                  type: "content_block_start",
                  index: 0,
                  content_block: { type: "text", text: "" },
                }),
              );
              x.res.write(
                anthropicEvent({
                  type: "content_block_delta",
                  index: 0,
                  delta: { type: "text_delta", text: "Half a sen" },
                }),
              );
            } else {
              x.res.write(anthropicEvent(A.toolStart(0, "toolu_01Half", "echo")));
              x.res.write(anthropicEvent(A.json(0, '{"text":"ha')));
            }
          } else if (stage === "inside the text")
            x.res.write(openaiEvent(O.chunk({ content: "Half a sen" })));
          else {
            const call = {
              index: 0,
              id: "call_half",
              type: "function",
              function: { name: "echo", arguments: '{"text":"ha' },
            };
            x.res.write(openaiEvent(O.chunk({ tool_calls: [call] })));
          }
          setTimeout(() => controller.abort(), 20);
        });
        if (stage === "during the retry wait")
          agent.subscribe((e) => {
            if (e.type === "retry") controller.abort();
          });
        const reply = await agent.prompt('call echo {"text":"half"}', { signal: controller.signal });
        fake.release();
        assert.equal(reply?.stopReason, "aborted", reply?.errorMessage);
        assert.deepEqual(ran, []);
        assert.deepEqual(roles(manager), ["user", "assistant"], "the prompt and its aborted reply are kept");
        assert.deepEqual(danglingCalls(manager), []);
        // Another process resumes the file and goes on.
        const file = manager.getSessionFile() as string;
        const resumed = await AgentSession.open({
          session: SessionManager.open(file),
          providers: [providerFor(api)],
          defaultModel: { provider: api, modelId: `${api}-test` },
          tools: testTools(),
          retry: false,
        });
        const next = await resumed.prompt("go on");
        assert.equal(next?.stopReason, "stop", next?.errorMessage);
        assert.deepEqual(fake.rejected, []);
        const body = JSON.stringify(fake.bodies.at(-1));
        assert.match(body, /call echo/, "the aborted prompt is still in the context");
        assert.doesNotMatch(body, /Half a sen/, "the aborted partial reply is not");
      });
    }
  });
}

// ---- 7. the connection is reset after the final event ----

/**
 * Contract: docs/agent.md: "A reply is only a reply when the provider said it finished. A stream
 * the server closes before its final event (OpenAI: neither a finish_reason nor [DONE];
 * Anthropic: no message_stop) is an error". Here the provider did say so (Anthropic's
 * message_stop; OpenAI's finish_reason and the usage chunk) and only then the connection is reset
 * (a proxy or load balancer dropping the socket before the chunked body's terminator).
 *
 * The providers wrap the whole read in one try: the body's "terminated" after the final event
 * turns the finished reply into an error. With retries on it is generated a second time (paid
 * twice, streamed twice to the UI, and the second answer may differ: other tool calls); with
 * retries off the finished answer is stored as an error and left out of the context.
 */
for (const api of ["anthropic", "openai"] as const) {
  test(`${api}: a reset after the final event keeps the finished reply`, async () => {
    const { agent, manager } = await agentOn(api, { retry: false });
    fake.script.push((x) => {
      sseHead(x.res);
      if (x.api === "anthropic") {
        for (const e of [A.start(), ...A.textBlock(0, "The whole answer."), A.delta("end_turn"), A.stop])
          x.res.write(anthropicEvent(e));
      } else {
        x.res.write(openaiEvent(O.chunk({ content: "The whole answer." })));
        x.res.write(openaiEvent(O.chunk({}, "stop")));
        x.res.write(openaiEvent(O.usage()));
      }
      // Let the events reach the client, then drop the connection before the body's end.
      setTimeout(() => x.res.socket?.destroy(), 50);
    });
    const reply = await agent.prompt("hello");
    assert.equal(reply?.stopReason, "stop", reply?.errorMessage);
    assert.equal(assistants(manager).length, 1);
  });
}

// ---- 8. a second prompt while the first has not started its run ----

/**
 * Contract: AgentSession.run throws `invalid_argument` "The agent is already running" for a run
 * started during another (one run at a time: one anchor, one write queue per run). The check runs
 * before `await this.maybeAutoCompact()` and `running` is set after it, so a second `prompt()` in
 * that window — always at least one microtask, the whole summary request when the automatic
 * compaction runs against a slow provider — starts a second run: both write under the same
 * anchor, the first prompt's reply is lost and the second prompt is answered twice.
 */
test("a second prompt() before the first run started is refused, not run concurrently", async () => {
  const { agent, manager } = await agentOn("openai", { retry: false });
  const first = agent.prompt("first");
  const second = agent.prompt("second");
  const [a, b] = await Promise.allSettled([first, second]);
  assert.equal(a.status, "fulfilled");
  assert.equal(b.status, "rejected", "the second prompt ran concurrently with the first");
  assert.deepEqual(roles(manager), ["user", "assistant"]);
});

/**
 * Contract: pi-ai (openai-completions) sets a streamed call's name from the delta that carries it,
 * it does not append: some OpenAI-compatible servers repeat the name in every delta, and the call
 * must still be the tool the model named ("echo", not "echoecho").
 */
test("openai: a server that repeats the tool's name in every delta calls that tool once", async () => {
  const { agent, manager, ran } = await agentOn("openai", { retry: false });
  fake.script.push((x) => {
    sseHead(x.res);
    const part = (args: string) => ({
      index: 0,
      id: "call_1",
      type: "function",
      function: { name: "echo", arguments: args },
    });
    x.res.write(openaiEvent(O.chunk({ role: "assistant", content: null, tool_calls: [part('{"text":')] })));
    x.res.write(openaiEvent(O.chunk({ tool_calls: [part('"hi"}')] })));
    x.res.write(openaiEvent(O.chunk({}, "tool_calls")));
    x.res.write(openaiEvent(O.usage()));
    x.res.write(openaiEvent("[DONE]"));
    x.res.end();
  });
  await agent.prompt("call echo");
  assert.deepEqual(ran, [{ tool: "echo", args: { text: "hi" } }]);
  const call = assistants(manager)[0]?.content.find((b) => b.type === "toolCall");
  assert.equal(call?.type === "toolCall" ? call.name : undefined, "echo");
});
