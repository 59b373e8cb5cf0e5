import type { AssistantMessage } from "../../core/messages.js";

/**
 * How the APIs this agent speaks say a request was larger than the model's context window, in
 * the error text a failed call carries (`HTTP 400: {…the provider's body…}`):
 * - Anthropic: "prompt is too long: 213462 tokens > 200000 maximum"; a request over its byte
 *   limit, 413 `request_too_large`;
 * - OpenAI: `context_length_exceeded` ("This model's maximum context length is 128000 tokens…"),
 *   and the Responses API's "Your input exceeds the context window of this model";
 * - OpenAI-compatible servers: OpenRouter's "maximum context length is N tokens", Groq's "reduce
 *   the length of the messages", llama.cpp's "exceeds the available context size", LM Studio's
 *   "greater than the context length", vLLM's "maximum context length is N tokens".
 */
const OVERFLOW: readonly RegExp[] = [
  /prompt is too long/i,
  /request_too_large/i,
  /context[_ ]length[_ ]exceeded/i,
  /exceeds the context window/i,
  /maximum context length is \d+/i,
  /reduce the length of the messages/i,
  /exceeds the available context size/i,
  /greater than the context length/i,
];

/** A rate limit may speak of tokens too ("too many tokens per minute"): never an overflow. */
const NOT_OVERFLOW = /rate.?limit|too many requests|HTTP 429\b/i;

/** Whether a failed reply says the context was over the model's window (so compacting may help). */
export function isContextOverflow(message: AssistantMessage): boolean {
  if (message.stopReason !== "error" || !message.errorMessage) return false;
  const text = message.errorMessage;
  return !NOT_OVERFLOW.test(text) && OVERFLOW.some((pattern) => pattern.test(text));
}
