import { NotFoundError } from "../../core/errors.js";
import {
  DEFAULT_IDLE_GAP_MS,
  isImported,
  RootStatsBuilder,
  type StatsGrouping,
  sessionStats,
} from "../../format/stats.js";
import { HttpError } from "../http/http-error.js";
import type { Reply } from "../http/route.js";
import type { ServerServices } from "../services.js";
import { gatedRead } from "./read-gate.js";
import { readSnapshot } from "./session-snapshot.js";
import { TimeSlicer } from "./time-slicer.js";

/**
 * The stats answers: `sessiontree stats`'s own functions (src/format/stats*.ts) over sessions read
 * in pages that yield (work/session-snapshot.ts), under the whole-read caps (work/read-gate.ts).
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
    const { summary, header, tree } = await readSnapshot(services, owner, sessionId, new TimeSlicer());
    const imported = isImported(header);
    const stats = sessionStats(tree, { imported, idleGapMs, since });
    const body = {
      sessionId: summary.id,
      cwd: summary.cwd,
      name: tree.getSessionName() ?? null,
      imported,
      leafId: summary.leafId,
      since: since === undefined ? null : new Date(since).toISOString(),
      ...stats,
    };
    return { body, revision: summary.revision };
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
  const builder = new RootStatsBuilder({
    by: query.by ?? "session",
    since,
    idleGapMs: idleGapOf(query.idle),
  });
  return gatedRead(services, owner, async () => {
    const slicer = new TimeSlicer();
    for (const sessionId of await activeSessionIds(services, owner)) {
      const snapshot = await readSnapshot(services, owner, sessionId, slicer).catch(unlessGone);
      if (snapshot === null) continue;
      const { summary, header, tree } = snapshot;
      builder.add({
        tree,
        sessionId,
        path: sessionId,
        cwd: summary.cwd,
        name: tree.getSessionName() ?? null,
        imported: isImported(header),
      });
      await slicer.breathe();
    }
    const stats = builder.build();
    // A group by session names its file in the CLI; here the key is the session's id already.
    return { body: { ...stats, groups: stats.groups.map(({ path: _path, ...group }) => group) } };
  });
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
function unlessGone(error: unknown): null {
  if (error instanceof NotFoundError && error.code === "session_not_found") return null;
  throw error;
}

const UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `since` as ms since the epoch; the schema has checked its form, not that the date exists. */
export function sinceOf(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const ago = /^(\d+)([mhdw])$/.exec(value);
  if (ago) return now - Number(ago[1]) * (UNIT_MS[ago[2] as string] as number);
  // A bare date is UTC midnight (Date.parse's rule); the schema requires a zone with a time.
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new HttpError(400, "invalid_request", `query.since: no such date: ${value}`);
  return ms;
}

function idleGapOf(minutes: number | undefined): number {
  return minutes === undefined ? DEFAULT_IDLE_GAP_MS : minutes * 60_000;
}
