import type { RequestFacts } from "../http/request-facts.js";

/** One line per request; `level` is "error" for a 5xx, whose cause is on the same line. */
export interface AccessLine {
  time: string;
  level: "info" | "warn" | "error";
  msg: "request";
  requestId: string;
  method: string;
  route: string;
  path: string;
  status: number;
  durationMs: number;
  user?: string;
  error?: { name: string; message: string; code?: string; at?: string };
}

export type LineSink = (line: string) => void;

export const stdoutSink: LineSink = (line) => process.stdout.write(`${line}\n`);
export const stderrSink: LineSink = (line) => process.stderr.write(`${line}\n`);

export interface FinishedRequest {
  facts: RequestFacts;
  method: string;
  path: string;
  status: number;
  durationMs: number;
}

/** The JSON line for a finished request. A 5xx carries its cause: name, message, the first frame. */
export function accessLine(done: FinishedRequest, now = new Date()): AccessLine {
  const { facts, status } = done;
  const line: AccessLine = {
    time: now.toISOString(),
    level: status >= 500 ? "error" : status >= 400 ? "warn" : "info",
    msg: "request",
    requestId: facts.requestId,
    method: done.method,
    route: facts.route ?? "other",
    path: done.path,
    status,
    durationMs: Math.round(done.durationMs * 1000) / 1000,
  };
  if (facts.user) line.user = facts.user;
  if (status >= 500 && facts.error !== undefined) line.error = describeError(facts.error);
  return line;
}

function describeError(error: unknown): NonNullable<AccessLine["error"]> {
  if (!(error instanceof Error)) return { name: "thrown", message: String(error) };
  const code = (error as { code?: unknown }).code;
  // The first frame says where; the whole stack would spread one failure over many lines.
  const at = error.stack?.split("\n").find((frame) => frame.trimStart().startsWith("at "));
  return {
    name: error.name,
    message: error.message,
    ...(typeof code === "string" ? { code } : {}),
    ...(at ? { at: at.trim() } : {}),
  };
}
