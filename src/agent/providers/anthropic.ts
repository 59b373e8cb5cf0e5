import type { StopReason } from "../../core/messages.js";
import { anthropicBody } from "../convert/anthropic-payload.js";
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

export interface AnthropicProviderOptions {
  /** @default process.env.ANTHROPIC_API_KEY */
  apiKey?: string;
  /** @default "https://api.anthropic.com" */
  baseUrl?: string;
  headers?: Record<string, string>;
}

interface Block {
  type: string;
  text: string;
  id?: string;
  name?: string;
}

/**
 * Anthropic Messages over fetch + SSE.
 * @example new AnthropicProvider() // key from ANTHROPIC_API_KEY
 */
export class AnthropicProvider implements Provider {
  readonly name = "anthropic";
  readonly api = "anthropic-messages";
  private readonly options: Readonly<AnthropicProviderOptions>;

  constructor(options: AnthropicProviderOptions = {}) {
    this.options = Object.freeze({ ...options });
  }

  requestBody(request: ProviderRequest) {
    return anthropicBody(request);
  }

  async *stream(request: ProviderRequest, signal?: AbortSignal): AsyncGenerator<ProviderEvent> {
    const baseUrl = (this.options.baseUrl ?? "https://api.anthropic.com").replace(/\/+$/, "");
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "anthropic-version": "2023-06-01",
      "x-api-key": this.options.apiKey ?? process.env.ANTHROPIC_API_KEY ?? "",
      ...this.options.headers,
    };
    const blocks = new Map<number, Block>();
    let input = 0;
    let output = 0;
    let cacheRead = 0;
    let cacheWrite = 0;
    let stop: string | undefined;
    let sawStop = false;
    const usage = (): Usage =>
      input || output ? usageOf(input, output, cacheRead, cacheWrite) : zeroUsage();
    try {
      const body = this.requestBody(request).body;
      const response = await fetch(`${baseUrl}/v1/messages`, { method: "POST", headers, body, signal });
      const stream = await eventStreamOf(response);
      if ("type" in stream) {
        yield stream;
        return;
      }
      for await (const event of readSse(stream)) {
        const data = JSON.parse(event.data) as AnthropicEvent;
        if (data.type === "error") {
          yield streamError(data.error, usage());
          return;
        }
        if (data.type === "message_stop") sawStop = true;
        if (data.type === "message_start") {
          const u = data.message?.usage ?? {};
          input = u.input_tokens ?? 0;
          cacheRead = u.cache_read_input_tokens ?? 0;
          cacheWrite = u.cache_creation_input_tokens ?? 0;
          output = u.output_tokens ?? 0;
        } else if (data.type === "content_block_start" && data.content_block) {
          const b = data.content_block;
          blocks.set(data.index ?? 0, { type: b.type, text: "", id: b.id, name: b.name });
          if (b.type === "redacted_thinking" && typeof b.data === "string")
            yield { type: "redacted_thinking", data: b.data };
        } else if (data.type === "content_block_delta" && data.delta) {
          const block = blocks.get(data.index ?? 0);
          const d = data.delta;
          if (d.type === "text_delta" && d.text) yield { type: "text_delta", delta: d.text };
          else if (d.type === "thinking_delta" && d.thinking)
            yield { type: "thinking_delta", delta: d.thinking };
          else if (d.type === "signature_delta" && d.signature)
            yield { type: "thinking_delta", delta: "", signature: d.signature };
          else if (d.type === "input_json_delta" && block) block.text += d.partial_json ?? "";
        } else if (data.type === "message_delta") {
          stop = data.delta?.stop_reason ?? stop;
          output = data.usage?.output_tokens ?? output;
          input = data.usage?.input_tokens ?? input;
          cacheRead = data.usage?.cache_read_input_tokens ?? cacheRead;
          cacheWrite = data.usage?.cache_creation_input_tokens ?? cacheWrite;
        }
      }
    } catch (error) {
      // A connection lost after message_stop lost nothing: the reply is whole (and paid for).
      if (!sawStop || signal?.aborted) {
        yield thrownError(error, signal, usage());
        return;
      }
    }
    // As pi: a stream without message_stop was cut short, whatever it carried so far.
    if (!sawStop) {
      yield truncatedError("message_stop", usage());
      return;
    }
    for (const [, block] of [...blocks.entries()].sort((a, b) => a[0] - b[0])) {
      if (block.type !== "tool_use") continue;
      yield {
        type: "tool_call",
        id: block.id ?? "",
        name: block.name ?? "",
        arguments: parseToolArguments(block.text),
      };
    }
    yield { type: "done", usage: usage(), ...mapStop(stop) };
  }
}

interface AnthropicEvent {
  type: string;
  index?: number;
  error?: { type?: string; message?: string };
  message?: { usage?: AnthropicUsage };
  usage?: AnthropicUsage;
  content_block?: { type: string; id?: string; name?: string; data?: string };
  delta?: {
    type?: string;
    text?: string;
    thinking?: string;
    signature?: string;
    partial_json?: string;
    stop_reason?: string;
  };
}

interface AnthropicUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
}

/**
 * pi's mapping: a refusal or a safety stop is an error stop with the reason in `errorMessage`, so
 * it stays distinguishable from an answer; a stop reason nobody knows yet is an error too.
 */
function mapStop(stop: string | undefined): { stopReason: StopReason; errorMessage?: string } {
  if (stop === "tool_use") return { stopReason: "toolUse" };
  if (stop === "max_tokens") return { stopReason: "length" };
  if (stop === undefined || stop === "end_turn" || stop === "stop_sequence" || stop === "pause_turn")
    return { stopReason: "stop" };
  return { stopReason: "error", errorMessage: `Provider stop_reason: ${stop}` };
}
