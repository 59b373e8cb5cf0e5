import type { RequestFacts } from "../http/request-facts.js";
import { describeError, type LoggedError, type LogLevel } from "./log-line.js";

/** One line per request; `level` is "error" for a 5xx, whose cause is on the same line. */
export interface AccessLine {
  time: string;
  level: LogLevel;
  msg: "request";
  requestId: string;
  method: string;
  route: string;
  path: string;
  status: number;
  durationMs: number;
  user?: string;
  error?: LoggedError;
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
