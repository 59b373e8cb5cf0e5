import type { ToolCallContent, ToolResultMessage } from "../core/messages.js";
import type { AgentListener } from "./events.js";
import type { PermissionPolicy } from "./permissions.js";
import { unparsedArguments } from "./providers/tool-arguments.js";
import { type AgentTool, argumentProblems, type ToolOutput } from "./tools.js";

/**
 * Runs one tool call against today's tools and today's permissions. Every refusal — unknown tool,
 * denied, invalid arguments, a thrown error, an abort — becomes an error result; the run goes on.
 */
export async function runToolCall(
  call: ToolCallContent,
  tools: readonly AgentTool[],
  permissions: PermissionPolicy,
  emit: AgentListener,
  signal: AbortSignal,
): Promise<ToolResultMessage> {
  await emit({ type: "tool_call_start", call });
  // Arguments cut short (the reply hit its output limit) or malformed are never run, even when
  // every parameter of the tool is optional: what was cut may be what mattered.
  if (unparsedArguments(call.arguments) !== undefined)
    return errorResult(
      call,
      `The arguments of this ${call.name} call are not valid JSON (cut short?); it was not run.`,
    );
  const tool = tools.find((t) => t.name === call.name);
  if (!tool)
    return errorResult(call, `Tool ${call.name} is not available in this session's current configuration.`);
  const permission = await permissions.check(call);
  if (!permission.allowed) {
    // The refusal is the call's result, so the tree says what refused it: the rule, as of today.
    const rule = permission.rule ? { ...permission.rule } : undefined;
    return errorResult(call, permission.reason, { refused: "permission", rule });
  }
  const problem = argumentProblems(tool, call.arguments);
  if (problem) return errorResult(call, problem);
  try {
    const output = await tool.execute(call.arguments as never, {
      toolCallId: call.id,
      signal,
      onProgress: (update) => void emit({ type: "tool_call_progress", call, update }),
    });
    if (signal.aborted) return errorResult(call, "Aborted: the run was stopped while this tool was running.");
    return toResult(call, output);
  } catch (error) {
    if (signal.aborted) return errorResult(call, "Aborted: the run was stopped while this tool was running.");
    return errorResult(
      call,
      `Tool ${call.name} failed: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

function toResult(call: ToolCallContent, output: ToolOutput): ToolResultMessage {
  const content =
    typeof output.content === "string" ? [{ type: "text" as const, text: output.content }] : output.content;
  const result: ToolResultMessage = {
    role: "toolResult",
    toolCallId: call.id,
    toolName: call.name,
    content,
    isError: output.isError === true,
    timestamp: Date.now(),
  };
  if (output.details !== undefined) result.details = output.details;
  return result;
}

function errorResult(call: ToolCallContent, text: string, details?: unknown): ToolResultMessage {
  return toResult(call, { content: text, isError: true, details });
}
