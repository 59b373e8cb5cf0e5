import type {
  AgentMessage,
  AssistantMessage,
  ToolCallContent,
  ToolResultMessage,
  UserMessage,
} from "../core/messages.js";
import { AssistantBuilder } from "./assistant-builder.js";
import type { AgentListener } from "./events.js";
import { PermissionPolicy } from "./permissions.js";
import type { Provider, ProviderErrorEvent, ProviderRequest, ThinkingLevel } from "./provider.js";
import { type RetryPolicy, retryDelay, retryPolicy, sleep } from "./retry.js";
import { runToolCall } from "./tool-runner.js";
import { type AgentTool, toolSpec } from "./tools.js";

/** Today's configuration for one run. Nothing here is read from history. */
export interface LoopConfig {
  provider: Provider;
  model: string;
  systemPrompt: string;
  thinkingLevel: ThinkingLevel;
  tools: readonly AgentTool[];
  permissions?: PermissionPolicy;
  /** Model calls per run before the loop stops (a runaway tool loop). @default 50 */
  maxTurns?: number;
  maxTokens?: number;
  /** Retries of a model call that failed in a way another attempt may fix. @default DEFAULT_RETRY_POLICY */
  retry?: Partial<RetryPolicy> | false;
}

export interface LoopHooks {
  /** The context for the next model call (the session's projection after every write so far). */
  context(): Promise<readonly AgentMessage[]>;
  /** Receives every event; awaited, so persistence happens in event order. */
  emit: AgentListener;
}

/**
 * Runs one prompt to completion: model call, tool calls, model call… until the model stops
 * without calling tools, the run is aborted, or an error ends it. Returns the last assistant message.
 */
export async function runLoop(
  config: LoopConfig,
  hooks: LoopHooks,
  prompt: UserMessage | undefined,
  signal: AbortSignal = new AbortController().signal,
): Promise<AssistantMessage | undefined> {
  const permissions = config.permissions ?? new PermissionPolicy();
  if (prompt) {
    await hooks.emit({ type: "message_start", message: prompt });
    await hooks.emit({ type: "message_end", message: prompt });
  }
  let last: AssistantMessage | undefined;
  for (let turn = 0; turn < (config.maxTurns ?? 50); turn++) {
    await hooks.emit({ type: "turn_start", turn });
    const assistant = await callModel(config, hooks, signal);
    last = assistant;
    const calls = assistant.content.filter((b): b is ToolCallContent => b.type === "toolCall");
    const results: ToolResultMessage[] = [];
    for (const call of calls) {
      const result = signal.aborted
        ? abortedResult(call)
        : await runToolCall(call, config.tools, permissions, hooks.emit, signal);
      await hooks.emit({ type: "message_start", message: result });
      await hooks.emit({ type: "message_end", message: result });
      await hooks.emit({ type: "tool_call_end", call, result });
      results.push(result);
    }
    await hooks.emit({ type: "turn_end", turn, assistant, toolResults: results });
    if (assistant.stopReason === "aborted" || signal.aborted) {
      await hooks.emit({ type: "abort", reason: "aborted by the caller" });
      return last;
    }
    if (assistant.stopReason === "error") {
      await hooks.emit({ type: "error", message: assistant.errorMessage ?? "provider error" });
      return last;
    }
    if (calls.length === 0) return last;
  }
  await hooks.emit({
    type: "error",
    message: `Stopped after ${config.maxTurns ?? 50} model calls in one run`,
  });
  return last;
}

async function callModel(
  config: LoopConfig,
  hooks: LoopHooks,
  signal: AbortSignal,
): Promise<AssistantMessage> {
  const request: ProviderRequest = {
    model: config.model,
    systemPrompt: config.systemPrompt,
    messages: await hooks.context(),
    tools: config.tools.map(toolSpec),
    thinkingLevel: config.thinkingLevel,
    maxTokens: config.maxTokens,
  };
  const { body, repairs } = config.provider.requestBody(request);
  await hooks.emit({ type: "request", body, repairs });
  const policy = retryPolicy(config.retry);
  for (let retry = 1; ; retry++) {
    const { message, failure } = await attempt(config, hooks, request, signal);
    const delayMs = failure && !signal.aborted ? retryDelay(policy, retry, failure) : undefined;
    if (delayMs === undefined) {
      await hooks.emit({ type: "message_end", message });
      return message;
    }
    // Nothing of a failed attempt is written: only the last attempt's message ends.
    const maxRetries = policy.maxRetries;
    await hooks.emit({ type: "retry", attempt: retry, maxRetries, delayMs, error: failure?.message ?? "" });
    if (!(await sleep(delayMs, signal))) {
      message.stopReason = "aborted";
      message.errorMessage = "aborted while waiting to retry";
      await hooks.emit({ type: "message_end", message });
      return message;
    }
  }
}

/** One model call streamed into a message; the provider's error, if the call failed. */
async function attempt(
  config: LoopConfig,
  hooks: LoopHooks,
  request: ProviderRequest,
  signal: AbortSignal,
): Promise<{ message: AssistantMessage; failure?: ProviderErrorEvent }> {
  const builder = new AssistantBuilder(config.provider, config.model);
  let failure: ProviderErrorEvent | undefined;
  await hooks.emit({ type: "message_start", message: builder.message });
  try {
    for await (const event of config.provider.stream(request, signal)) {
      if (event.type === "error") failure = event;
      const delta = builder.apply(event);
      if (delta) await hooks.emit({ type: "message_update", message: builder.message, delta });
    }
  } catch (error) {
    builder.fail(error instanceof Error ? error.message : String(error), signal.aborted);
  }
  if (signal.aborted && builder.message.stopReason !== "aborted") builder.fail("aborted", true);
  return { message: builder.finish(), failure };
}

function abortedResult(call: ToolCallContent): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId: call.id,
    toolName: call.name,
    content: [{ type: "text", text: "Aborted: the run was stopped before this tool call ran." }],
    isError: true,
    timestamp: Date.now(),
  };
}
