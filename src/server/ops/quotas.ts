import type { ServiceDb } from "../db/service-db.js";
import { HttpError } from "../http/http-error.js";

/** Per-user ceilings. Sessions in the trash count until purged (they still take the space). */
export interface Quotas {
  maxSessions: number;
  maxEntries: number;
  /** Stored entry payloads, in bytes of their JSON. */
  maxBytes: number;
}

/** What one write request would add, as far as the edge can tell before running it. */
export interface Growth {
  sessions: number;
  entries: number;
  bytes: number;
}

export interface Usage {
  sessions: number;
  entries: number;
  bytes: number;
}

/**
 * The user's usage, read from the store's own tables: the quota is about what the store holds, and
 * it is one indexed query. It needs the store in the database the server's tables are in (the
 * server opened both); a store passed in from outside cannot have quotas.
 */
const USAGE_SQL = {
  sqlite: `SELECT COUNT(*) AS sessions, COALESCE(SUM(entry_count), 0) AS entries,
      (SELECT COALESCE(SUM(LENGTH(CAST(e.payload AS BLOB))), 0) FROM entries e
        JOIN sessions s2 ON s2.pk = e.session_pk WHERE s2.owner = $1) AS bytes
    FROM sessions WHERE owner = $2`,
  postgres: `SELECT COUNT(*) AS sessions, COALESCE(SUM(entry_count), 0) AS entries,
      (SELECT COALESCE(SUM(octet_length(e.payload::text)), 0) FROM entries e
        JOIN sessions s2 ON s2.pk = e.session_pk WHERE s2.owner = $1) AS bytes
    FROM sessions WHERE owner = $2`,
} as const;

export async function readUsage(db: ServiceDb, owner: string): Promise<Usage> {
  const [row] = await db.sql.all<Record<keyof Usage, number | string>>(USAGE_SQL[db.kind], [owner, owner]);
  return {
    sessions: Number(row?.sessions ?? 0),
    entries: Number(row?.entries ?? 0),
    bytes: Number(row?.bytes ?? 0),
  };
}

/**
 * Refuses a write that would take the user past a quota: 403 `quota_exceeded`, naming the quota.
 * Checked before the write, so concurrent writes of one user may pass a quota by what they add.
 */
export async function checkQuotas(
  db: ServiceDb,
  quotas: Partial<Quotas>,
  owner: string,
  growth: Growth,
): Promise<void> {
  const usage = await readUsage(db, owner);
  const checks: Array<[keyof Usage, number | undefined, string]> = [
    ["sessions", quotas.maxSessions, "sessions"],
    ["entries", quotas.maxEntries, "entries"],
    ["bytes", quotas.maxBytes, "bytes of entries"],
  ];
  for (const [field, limit, what] of checks) {
    if (limit === undefined || growth[field] === 0) continue;
    if (usage[field] + growth[field] > limit) {
      throw new HttpError(
        403,
        "quota_exceeded",
        `This write would exceed the user's quota of ${limit} ${what} (${usage[field]} in use)`,
        {},
        { quota: field, limit, used: usage[field] },
      );
    }
  }
}

/** What a route's request adds, by operation; null for routes that do not grow a user's data. */
export function requestGrowth(operationId: string, body: unknown, rawBody: string): Growth | null {
  const bytes = Buffer.byteLength(rawBody);
  switch (operationId) {
    case "createSession":
    // Counted whether or not the session is there already (the edge cannot tell): a copy at the
    // quota whose session is in the trash here is refused rather than told so.
    case "putSyncSession":
      return { sessions: 1, entries: 0, bytes: 0 };
    case "importSession":
      return { sessions: 1, entries: rawBody.split("\n").filter((line) => line.trim()).length, bytes };
    case "appendEntries":
    case "syncAppendEntries": {
      const entries = (body as { entries?: unknown } | null)?.entries;
      return { sessions: 0, entries: Array.isArray(entries) ? entries.length : 1, bytes };
    }
    // Each appends one entry: a branch summary, a label, a session_info with the name.
    case "branchSession":
    case "setLabel":
    case "renameSession":
      return { sessions: 0, entries: 1, bytes };
    default:
      return null;
  }
}
