/**
 * What a tool answers: text for the model to read, the same facts as `structuredContent` JSON for
 * a program. A failure is a tool result with `isError` (the model reads why, with the stable code
 * sessiontree gives it), never a protocol error or a crash of the server.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { errorCode } from "../exit.js";

export function toolResult(text: string, structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: "text", text }], structuredContent: structured };
}

export function toolError(error: unknown): CallToolResult {
  const message = error instanceof Error ? error.message : String(error);
  const code = codeOf(error);
  return {
    content: [{ type: "text", text: `error [${code}] ${message}` }],
    structuredContent: { error: { code, message } },
    isError: true,
  };
}

/** sessiontree's code, the service's (`SessionTreeApiError.code`), else "internal". */
function codeOf(error: unknown): string {
  const known = errorCode(error);
  if (known !== "internal") return known;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : "internal";
}

/**
 * A tool's handler with its failures turned into error results. An unexpected one (a bug, not bad
 * input) is also logged with its stack on stderr, the server's log (stdout carries the protocol).
 */
export function guarded<A>(
  run: (args: A) => Promise<CallToolResult>,
  log: (line: string) => void,
): (args: A) => Promise<CallToolResult> {
  return async (args) => {
    try {
      return await run(args);
    } catch (error) {
      const result = toolError(error);
      const code = (result.structuredContent as { error: { code: string } }).error.code;
      if (code === "internal" && error instanceof Error) log(error.stack ?? error.message);
      return result;
    }
  };
}
