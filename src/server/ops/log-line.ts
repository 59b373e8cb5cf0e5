/**
 * The server's log lines: one JSON object per line (`time`, `level`, `msg`, then fields), on
 * stdout for what is normal and on stderr for what is not, so `journalctl -o cat | jq` reads
 * every line a server writes: the start line, warnings, the access log, failures.
 */
export type LogLevel = "info" | "warn" | "error";

export interface LoggedError {
  name: string;
  message: string;
  code?: string;
  at?: string;
  /** What the error was raised for (`Error.cause`): a 503 keeps the driver's words for the log. */
  cause?: LoggedError;
}

/** One line: `{ time, level, msg, ...fields }` as JSON. */
export function logLine(
  level: LogLevel,
  msg: string,
  fields: Record<string, unknown> = {},
  now = new Date(),
): string {
  return JSON.stringify({ time: now.toISOString(), level, msg, ...fields });
}

/** An error on one line: name, message, its code, the first frame, and its cause's the same way. */
export function describeError(error: unknown, depth = 0): LoggedError {
  if (!(error instanceof Error)) return { name: "thrown", message: String(error) };
  const code = (error as { code?: unknown }).code;
  // The first frame says where; the whole stack would spread one failure over many lines.
  const at = error.stack?.split("\n").find((frame) => frame.trimStart().startsWith("at "));
  return {
    name: error.name,
    message: error.message,
    ...(typeof code === "string" ? { code } : {}),
    ...(at ? { at: at.trim() } : {}),
    // One level is what a wrapped failure needs; a cycle of causes must not loop.
    ...(error.cause !== undefined && depth === 0 ? { cause: describeError(error.cause, 1) } : {}),
  };
}
