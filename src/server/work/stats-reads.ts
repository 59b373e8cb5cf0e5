import { isCalendarDay } from "../../core/calendar.js";
import { NotFoundError } from "../../core/errors.js";
import { DEFAULT_IDLE_GAP_MS, type StatsGrouping } from "../../format/stats.js";
import { HttpError } from "../http/http-error.js";
import type { Reply } from "../http/route.js";
import type { ServerServices } from "../services.js";
import { computePool } from "./compute-pool.js";
import { gatedRead } from "./read-gate.js";
import { feedSession } from "./session-snapshot.js";
import { TimeSlicer } from "./time-slicer.js";

/**
 * The stats answers: `sessiontree stats`'s own functions (src/format/stats*.ts), run by a compute
 * worker (work/compute-jobs.ts) over sessions the event loop reads in pages that yield
 * (work/session-snapshot.ts), under the whole-read caps (work/read-gate.ts).
 */
export interface StatsQueryFields {
  /** A date (UTC midnight), a date and time with its zone, or a time ago: 30m, 12h, 7d, 2w. */
  since?: string;
  /** Minutes. */
  idle?: number;
  by?: StatsGrouping;
}

interface SessionRead {
  services: ServerServices;
  owner: string;
  sessionId: string;
}

/** GET …/stats: one session, as `sessiontree stats <session> --json` answers (less its file path). */
export function sessionStatsAnswer(
  { services, owner, sessionId }: SessionRead,
  query: StatsQueryFields,
  now = Date.now(),
): Promise<Reply> {
  const since = sinceOf(query.since, now);
  const idleGapMs = idleGapOf(query.idle);
  return gatedRead(services, owner, async () => {
    const job = computePool().open({ kind: "stats", since, idleGapMs });
    try {
      const summary = await feedSession(services, owner, sessionId, job, new TimeSlicer());
      return { body: statsValue(await job.finish()), revision: summary.revision };
    } finally {
      job.drop();
    }
  });
}

/**
 * GET /v1/stats: every active session of the user folded in one at a time (memory holds the rows,
 * not the sessions), grouped by session (the default, as the CLI's), day (UTC), model or cwd.
 */
export function rootStatsAnswer(
  services: ServerServices,
  owner: string,
  query: StatsQueryFields,
  now = Date.now(),
): Promise<Reply> {
  const since = sinceOf(query.since, now);
  const task = {
    kind: "rootStats",
    by: query.by ?? "session",
    since,
    idleGapMs: idleGapOf(query.idle),
  } as const;
  return gatedRead(services, owner, async () => {
    const slicer = new TimeSlicer();
    const job = computePool().open(task);
    try {
      for (const sessionId of await activeSessionIds(services, owner)) {
        await feedSession(services, owner, sessionId, job, slicer).catch((error: unknown) => {
          unlessGone(error);
          job.discardSession();
        });
        await slicer.breathe();
      }
      return { body: statsValue(await job.finish()) };
    } finally {
      job.drop();
    }
  });
}

function statsValue(result: { bytes: Uint8Array } | { value: unknown }): unknown {
  if (!("value" in result)) throw new Error("compute worker: no value for stats");
  return result.value;
}

/** Every active session of the owner, listed before any is read (reading takes a while, and a write moves a session in the newest-first list). */
async function activeSessionIds(services: ServerServices, owner: string): Promise<string[]> {
  const ids = new Set<string>();
  let cursor: string | null = null;
  do {
    const page = await services.store.listSessions(owner, { limit: 1000, cursor });
    for (const summary of page.items) ids.add(summary.id);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return [...ids];
}

/** A session deleted while the sweep ran is left out, as if the sweep had started later. */
function unlessGone(error: unknown): void {
  if (error instanceof NotFoundError && error.code === "session_not_found") return;
  throw error;
}

const UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `since` as ms since the epoch; the schema has checked its form, not that the date exists. */
export function sinceOf(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const ago = /^(\d+)([mhdw])$/.exec(value);
  if (ago) return now - Number(ago[1]) * (UNIT_MS[ago[2] as string] as number);
  // A bare date is UTC midnight (Date.parse's rule); the schema requires a zone with a time.
  const ms = isCalendarDay(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) throw new HttpError(400, "invalid_request", `query.since: no such date: ${value}`);
  return ms;
}

function idleGapOf(minutes: number | undefined): number {
  return minutes === undefined ? DEFAULT_IDLE_GAP_MS : minutes * 60_000;
}
