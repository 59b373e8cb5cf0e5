import { ValidationError } from "../../core/errors.js";
import type { EntryPageOptions, ListOptions, Page, SessionSummary } from "../store.js";
import { normalizeSearch, searchText } from "../summary.js";

/** A position in the newest-first list: the last item seen. */
export interface ListPosition {
  modifiedAt: string;
  id: string;
}

/** Opaque to callers: base64url of the last item's sort key. */
export function encodeCursor(position: ListPosition): string {
  return Buffer.from(JSON.stringify([position.modifiedAt, position.id]), "utf8").toString("base64url");
}

export function decodeCursor(cursor: string): ListPosition {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (
      Array.isArray(value) &&
      value.length === 2 &&
      typeof value[0] === "string" &&
      typeof value[1] === "string"
    ) {
      return { modifiedAt: value[0], id: value[1] };
    }
  } catch {
    // Falls through to the error below: a cursor that does not decode is the caller's mistake.
  }
  throw new ValidationError("invalid_argument", "The list cursor is not valid");
}

/** List options with defaults applied and bounds checked, as every backend reads them. */
export interface ListQuery {
  limit: number;
  after: ListPosition | null;
  search: string | null;
  state: "active" | "deleted" | "all";
}

export function normalizeListOptions(options: ListOptions = {}): ListQuery {
  const state = options.state ?? "active";
  if (state !== "active" && state !== "deleted" && state !== "all") {
    throw new ValidationError("invalid_argument", `Unknown list state ${JSON.stringify(state)}`);
  }
  return {
    limit: boundedInteger(options.limit, 50, 1000, "limit"),
    after: options.cursor ? decodeCursor(options.cursor) : null,
    search: normalizeSearch(options.search),
    state,
  };
}

/** Builds a page from up to `limit + 1` rows already in list order (the extra row says "more"). */
export function toPage(rows: SessionSummary[], limit: number): Page<SessionSummary> {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, nextCursor: rows.length > limit && last ? encodeCursor(last) : null };
}

/**
 * What a list query selects from summaries held in memory (memory and JSONL drivers), filtered and
 * sorted as the SQL drivers' query does: up to `limit + 1` copies, in list order.
 */
export function selectPage(summaries: Iterable<SessionSummary>, query: ListQuery): SessionSummary[] {
  return [...summaries]
    .filter(
      (summary) => query.state === "all" || (summary.deletedAt !== null) === (query.state === "deleted"),
    )
    .filter((summary) => query.search === null || searchText(summary).includes(query.search))
    .filter((summary) => query.after === null || compareNewestFirst(query.after, summary) < 0)
    .sort(compareNewestFirst)
    .slice(0, query.limit + 1)
    .map((summary) => ({ ...summary }));
}

/** Newest first by modifiedAt, then by id (descending), as every backend sorts. */
export function compareNewestFirst(a: ListPosition, b: ListPosition): number {
  if (a.modifiedAt !== b.modifiedAt) return a.modifiedAt < b.modifiedAt ? 1 : -1;
  if (a.id !== b.id) return a.id < b.id ? 1 : -1;
  return 0;
}

export function normalizeEntryPage(options: EntryPageOptions = {}): { after: number; limit: number } {
  const after = options.after ?? 0;
  if (!Number.isSafeInteger(after) || after < 0) {
    throw new ValidationError("invalid_argument", "after must be a non-negative integer");
  }
  return { after, limit: boundedInteger(options.limit, 500, 5000, "limit") };
}

function boundedInteger(value: number | undefined, fallback: number, max: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new ValidationError("invalid_argument", `${name} must be a positive integer`);
  }
  return Math.min(value, max);
}
