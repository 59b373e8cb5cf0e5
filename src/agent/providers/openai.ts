import type { StopReason } from "../../core/messages.js";
import { openAiBody } from "../convert/openai-payload.js";
import {
  type Provider,
  type ProviderEvent,
  type ProviderRequest,
  type Usage,
  usageOf,
  zeroUsage,
} from "../provider.js";
import { eventStreamOf, streamError, thrownError, truncatedError } from "./faults.js";
import { readSse } from "./sse.js";
import { parseToolArguments } from "./tool-arguments.js";

export interface OpenAiProviderOptions {
  /** @default process.env.OPENAI_API_KEY */
  apiKey?: string;
  /** Any Chat Completions compatible endpoint. @default "https://api.openai.com/v1" */
  baseUrl?: string;
  /** Extra request headers (for gateways). */
  headers?: Record<string, string>;
  /** Written into assistant messages as `provider`. @default "openai" */
  name?: string;
}

interface PartialCall {
  id: string;
  name: string;
  args: string;
}

/**
 * OpenAI-compatible Chat Completions over fetch + SSE.
 * @example new OpenAiProvider({ baseUrl: "http://127.0.0.1:11434/v1" })
 */
export class OpenAiProvider implements Provider {
  readonly name: string;
  readonly api = "openai-completions";
  private readonly options: Readonly<OpenAiProviderOptions>;

  constructor(options: OpenAiProviderOptions = {}) {
    this.options = Object.freeze({ ...options });
    this.name = options.name ?? "openai";
  }

  requestBody(request: ProviderRequest) {
    return openAiBody(request);
  }

  async *stream(request: ProviderRequest, signal?: AbortSignal): AsyncGenerator<ProviderEvent> {
    const baseUrl = (this.options.baseUrl ?? "https://api.openai.com/v1").replace(/\/+$/, "");
    const apiKey = this.options.apiKey ?? process.env.OPENAI_API_KEY ?? "";
    const headers: Record<string, string> = { "content-type": "application/json", ...this.options.headers };
    if (apiKey) headers.authorization = `Bearer ${apiKey}`;
    const calls = new Map<number, PartialCall>();
    let usage: Usage = zeroUsage();
    let finish: string | undefined;
    let sawDone = false;
    try {
      const body = this.requestBody(request).body;
      const response = await fetch(`${baseUrl}/chat/completions`, { method: "POST", headers, body, signal });
      const stream = await eventStreamOf(response);
      if ("type" in stream) {
        yield stream;
        return;
      }
      for await (const event of readSse(stream)) {
        if (event.data === "[DONE]") {
          sawDone = true;
          break;
        }
        const chunk = JSON.parse(event.data) as OpenAiChunk;
        if (chunk.error) {
          yield streamError(chunk.error, usage);
          return;
        }
        if (chunk.usage) usage = chunkUsage(chunk.usage);
        const choice = chunk.choices?.[0];
        if (!choice) continue;
        const delta = choice.delta ?? {};
        const reasoning = delta.reasoning_content ?? delta.reasoning;
        if (reasoning) yield { type: "thinking_delta", delta: reasoning };
        if (delta.content) yield { type: "text_delta", delta: delta.content };
        for (const call of delta.tool_calls ?? []) collectCall(calls, call);
        if (choice.finish_reason) finish = choice.finish_reason;
      }
    } catch (error) {
      // A connection lost after finish_reason lost nothing: the reply is whole (and paid for).
      if (finish === undefined || signal?.aborted) {
        yield thrownError(error, signal, usage);
        return;
      }
    }
    // A server that closes the stream before saying how it finished has not finished: the text so
    // far may stop mid-sentence and a tool call's arguments mid-JSON (they are never run).
    if (finish === undefined && !sawDone) {
      yield truncatedError("finish_reason and [DONE]", usage);
      return;
    }
    for (const call of [...calls.entries()].sort((a, b) => a[0] - b[0]).map(([, c]) => c)) {
      yield { type: "tool_call", id: call.id, name: call.name, arguments: parseToolArguments(call.args) };
    }
    yield { type: "done", usage, ...mapFinish(finish, calls.size > 0) };
  }
}

interface OpenAiChunk {
  error?: { message?: string };
  usage?: {
    prompt_tokens?: number;
    completion_tokens?: number;
    prompt_tokens_details?: { cached_tokens?: number };
  };
  choices?: Array<{
    delta?: {
      content?: string | null;
      reasoning_content?: string;
      reasoning?: string;
      tool_calls?: Array<{ index?: number; id?: string; function?: { name?: string; arguments?: string } }>;
    };
    finish_reason?: string | null;
  }>;
}

type ChunkCall = NonNullable<
  NonNullable<NonNullable<OpenAiChunk["choices"]>[number]["delta"]>["tool_calls"]
>[number];

function collectCall(calls: Map<number, PartialCall>, delta: ChunkCall): void {
  const index = delta.index ?? calls.size;
  const call = calls.get(index) ?? { id: "", name: "", args: "" };
  if (delta.id) call.id = delta.id;
  // As pi-ai: the name is set, not appended (some servers repeat it in every delta).
  if (delta.function?.name) call.name = delta.function.name;
  if (delta.function?.arguments) call.args += delta.function.arguments;
  calls.set(index, call);
}

function chunkUsage(u: NonNullable<OpenAiChunk["usage"]>): Usage {
  const cached = u.prompt_tokens_details?.cached_tokens ?? 0;
  return usageOf((u.prompt_tokens ?? 0) - cached, u.completion_tokens ?? 0, cached);
}

/**
 * pi's mapping: a content filter, or any finish reason it does not know, is an error stop with the
 * reason in `errorMessage`, so a filtered reply is never taken for a finished one.
 */
function mapFinish(
  finish: string | undefined,
  hasCalls: boolean,
): { stopReason: StopReason; errorMessage?: string } {
  if (finish === undefined || finish === "stop" || finish === "end")
    return { stopReason: hasCalls ? "toolUse" : "stop" };
  if (finish === "length") return { stopReason: "length" };
  if (finish === "tool_calls" || finish === "function_call") return { stopReason: "toolUse" };
  return { stopReason: "error", errorMessage: `Provider finish_reason: ${finish}` };
}
