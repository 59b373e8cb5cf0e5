import type { SessionEntry } from "../../core/entry.js";
import { NotFoundError } from "../../core/errors.js";
import type { StatsGrouping } from "../../format/stats.js";
import { HttpError, type HttpErrorCode } from "../http/http-error.js";

/**
 * What the main thread and a compute worker (work/compute-worker.ts) say to each other. The main
 * thread reads a session a page at a time and posts the pages; the worker builds the tree and the
 * answer, so neither the work nor the garbage of a large session burdens the event loop that
 * serves everyone's small requests.
 */

/** The answers a worker builds: the JSON views, the stats of one session, stats over many. */
export type ComputeTask =
  | { kind: "tree" | "labels"; maxBytes: number }
  | { kind: "branch" | "context"; leafId: string | undefined; sessionId: string; maxBytes: number }
  | { kind: "stats"; since: number | undefined; idleGapMs: number }
  | { kind: "rootStats"; by: StatsGrouping; since: number | undefined; idleGapMs: number };

/** What a worker needs of a session besides its entries, sent after them. */
export interface SessionHead {
  sessionId: string;
  cwd: string;
  leafId: string | null;
  /** Its header says it was imported (`importedFrom`). */
  imported: boolean;
}

export type ToWorker =
  | { op: "open"; job: number; task: ComputeTask }
  | { op: "entries"; job: number; entries: SessionEntry[] }
  | { op: "session"; job: number; head: SessionHead }
  /** The session whose pages were sent since the last head is not to be counted (it went away). */
  | { op: "discard"; job: number }
  | { op: "finish"; job: number }
  | { op: "drop"; job: number };

/** A JSON answer as UTF-8 bytes (moved, not copied, to the main thread), or a small value. */
export type ComputeResult = { bytes: Uint8Array } | { value: unknown };

export type FromWorker =
  | { job: number; ok: true; result: ComputeResult }
  | { job: number; ok: false; error: WireError };

/** An error as it crosses threads: the typed ones the answer may carry, anything else as a 500. */
export type WireError =
  | {
      kind: "http";
      status: number;
      code: HttpErrorCode;
      message: string;
      headers: Record<string, string>;
      details?: Record<string, unknown>;
    }
  | {
      kind: "not_found";
      code: "entry_not_found" | "session_not_found";
      message: string;
      details: Record<string, unknown>;
    }
  | { kind: "other"; message: string; stack?: string };

export function toWire(error: unknown): WireError {
  if (error instanceof HttpError) {
    const { status, code, message, headers, details } = error;
    return { kind: "http", status, code, message, headers, details };
  }
  if (error instanceof NotFoundError) {
    const code = error.code as "entry_not_found" | "session_not_found";
    return { kind: "not_found", code, message: error.message, details: error.details };
  }
  if (error instanceof Error) return { kind: "other", message: error.message, stack: error.stack };
  return { kind: "other", message: String(error) };
}

export function fromWire(wire: WireError): Error {
  switch (wire.kind) {
    case "http":
      return new HttpError(wire.status, wire.code, wire.message, wire.headers, wire.details);
    case "not_found":
      return new NotFoundError(wire.code, wire.message, { details: wire.details });
    default: {
      const error = new Error(`compute worker: ${wire.message}`);
      if (wire.stack) error.stack = wire.stack;
      return error;
    }
  }
}
