import { createHash } from "node:crypto";
import { contentBlocks, type LlmMessage, toLlmMessages } from "../convert/llm-messages.js";
import { openAiBody } from "../convert/openai-payload.js";
import { type Provider, type ProviderEvent, type ProviderRequest, usageOf } from "../provider.js";

/** One scripted answer: text and/or tool calls (ids are derived from the request, so stable). */
export interface ScriptedReply {
  text?: string;
  thinking?: string;
  toolCalls?: Array<{ name: string; arguments: Record<string, unknown> }>;
}

export interface ScriptedProviderOptions {
  /** Replaces the default rules. Must be a pure function of the request to stay deterministic. */
  script?: (request: ProviderRequest, messages: LlmMessage[]) => ScriptedReply;
  /** Characters per text delta. @default 8 */
  chunkSize?: number;
  /** Pause between deltas, to let tests abort mid-stream. @default 0 */
  chunkDelayMs?: number;
  /** Called with each request body (the OpenAI-compatible body), for recording. */
  onRequest?: (body: string) => void;
}

/**
 * A deterministic, offline model for tests and trials — not a language model. Its replies say
 * "(scripted)". Default rules, applied to the last message of the context:
 * - a user message containing `call NAME {json}` (once or more) → those tool calls;
 * - a user message holding a `<conversation>` (a summary request) → a summary listing every line;
 * - tool results → "(scripted) Tool results: …";
 * - any other user message → "(scripted) You said: …".
 * The same request always gives the same reply, so a resumed run continues exactly.
 */
export class ScriptedProvider implements Provider {
  readonly name = "scripted";
  readonly api = "scripted";
  private readonly options: Readonly<ScriptedProviderOptions>;

  constructor(options: ScriptedProviderOptions = {}) {
    this.options = Object.freeze({ ...options });
  }

  /** The body an OpenAI-compatible endpoint would get: the scripted model answers the same request. */
  requestBody(request: ProviderRequest) {
    return openAiBody(request);
  }

  async *stream(request: ProviderRequest, signal?: AbortSignal): AsyncGenerator<ProviderEvent> {
    const { body } = this.requestBody(request);
    this.options.onRequest?.(body);
    const { messages } = toLlmMessages(request.messages);
    const reply = (this.options.script ?? defaultScript)(request, messages);
    const digest = createHash("sha256").update(body).digest("hex");
    if (reply.thinking && request.thinkingLevel !== "off")
      yield { type: "thinking_delta", delta: reply.thinking };
    const size = Math.max(1, this.options.chunkSize ?? 8);
    const text = reply.text ?? "";
    for (let i = 0; i < text.length; i += size) {
      if (signal?.aborted) return yield* aborted(body, text.slice(0, i));
      if (this.options.chunkDelayMs) await sleep(this.options.chunkDelayMs, signal);
      if (signal?.aborted) return yield* aborted(body, text.slice(0, i));
      yield { type: "text_delta", delta: text.slice(i, i + size) };
    }
    const calls = reply.toolCalls ?? [];
    // Ids come from the request bytes: a resumed run asks the same question and gets the same ids.
    for (const [index, call] of calls.entries()) {
      yield {
        type: "tool_call",
        id: `call_${digest.slice(0, 12)}_${index}`,
        name: call.name,
        arguments: call.arguments,
      };
    }
    const usage = usageOf(
      Math.ceil(body.length / 4),
      Math.ceil((text.length + JSON.stringify(calls).length) / 4),
    );
    yield { type: "done", stopReason: calls.length > 0 ? "toolUse" : "stop", usage };
  }
}

function* aborted(body: string, sent: string): Generator<ProviderEvent> {
  yield {
    type: "error",
    message: "aborted",
    aborted: true,
    usage: usageOf(Math.ceil(body.length / 4), Math.ceil(sent.length / 4)),
  };
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

const CALL_PATTERN = /\bcall (\w+)(?:\s+(\{[^\n]*?\}))?(?=\s|$|,|\.)/g;

export function defaultScript(request: ProviderRequest, messages: LlmMessage[]): ScriptedReply {
  const last = messages[messages.length - 1];
  const thinking = `(scripted) thinking at level ${request.thinkingLevel}`;
  if (!last) return { text: "(scripted) Nothing to answer.", thinking };
  if (last.role === "toolResult") {
    const results: string[] = [];
    for (let i = messages.length - 1; i >= 0 && messages[i]?.role === "toolResult"; i--) {
      const result = messages[i] as Extract<LlmMessage, { role: "toolResult" }>;
      const text = contentBlocks(result.content)
        .map((b) => (b.type === "text" ? b.text : "[image]"))
        .join(" ");
      results.unshift(`${result.toolName}${result.isError ? " (error)" : ""}: ${text.slice(0, 200)}`);
    }
    return { text: `(scripted) Tool results: ${results.join("; ")}`, thinking };
  }
  const text =
    last.role === "user"
      ? contentBlocks(last.content)
          .map((b) => (b.type === "text" ? b.text : ""))
          .join("\n")
      : "";
  if (text.includes("<conversation>")) return { text: scriptedSummary(text) };
  const toolCalls = [...text.matchAll(CALL_PATTERN)].map((m) => ({
    name: m[1] as string,
    arguments: parseJson(m[2]),
  }));
  if (toolCalls.length > 0)
    return { text: `(scripted) Calling ${toolCalls.map((c) => c.name).join(", ")}.`, toolCalls, thinking };
  return { text: `(scripted) You said: ${text}`, thinking };
}

/** Keeps the previous summary whole and one line per message, so nothing summarized is lost. */
function scriptedSummary(prompt: string): string {
  const previous = /<previous-summary>\n([\s\S]*?)\n<\/previous-summary>/.exec(prompt)?.[1];
  const conversation = /<conversation>\n([\s\S]*?)\n<\/conversation>/.exec(prompt)?.[1] ?? "";
  const lines = conversation
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => `- ${l.slice(0, 160)}`);
  return ["(scripted summary)", ...(previous ? [previous] : []), ...lines].join("\n");
}

function parseJson(text: string | undefined): Record<string, unknown> {
  if (!text) return {};
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return { text };
  }
}
