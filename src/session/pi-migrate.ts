import { CURRENT_SESSION_VERSION, headerVersion } from "../core/entry.js";
import { StreamingMigrator } from "../format/jsonl/migrate.js";
import type { FileEntry } from "./pi-parse.js";

type Raw = Record<string, unknown>;

/**
 * pi's `migrateSessionEntries`: brings records parsed from an older file (header and entries, in
 * file order) to the current version, in place, with the same migration the decoder applies while
 * reading (format/jsonl/migrate.ts): v1 entries get ids chained in order and a compaction's
 * `firstKeptEntryIndex` (a position in `entries`) becomes `firstKeptEntryId`; v2's `hookMessage`
 * role becomes `custom`; every header gets the current version.
 *
 * Two differences, both keeping data: the ids given to v1 entries are derived from the session id
 * and the entry's place, so two readings agree (pi draws random ones); and records without any
 * header whose entries all carry ids already are not renumbered (pi takes them for v1 and replaces
 * every id and parent, flattening the tree), only given the v2 → v3 renaming.
 */
export function migrateSessionEntries(entries: FileEntry[]): void {
  // Records as parsed, before any check: any JSON value may be there.
  const all = entries as unknown[];
  const records = all.filter(isRecord);
  const header = records.find((record) => record.type === "session");
  const version = versionOf(header, records);
  if (version >= CURRENT_SESSION_VERSION) return;
  if (version < 2) pointKeptIndexesAtLines(all);
  const migrator = new StreamingMigrator(version, typeof header?.id === "string" ? header.id : "");
  for (const record of records) {
    if (record.type === "session") record.version = CURRENT_SESSION_VERSION;
    else migrator.migrate(record);
  }
}

function versionOf(header: Raw | undefined, records: readonly Raw[]): number {
  if (header) return headerVersion(header);
  const entries = records.filter((record) => record.type !== "session");
  const identified = entries.length > 0 && entries.every((record) => typeof record.id === "string");
  return identified ? 2 : 1;
}

/**
 * The migrator counts positions as lines of a file: the header is 0 and entries follow it. A v1
 * compaction names its kept entry by its position in `entries`, where a header may be missing or
 * elsewhere, so each index is turned into the migrator's count first. An index that names no entry
 * (the header, or nothing) becomes 0, which the migrator leaves without a kept id, as pi does.
 */
function pointKeptIndexesAtLines(entries: readonly unknown[]): void {
  const lineOf = new Map<number, number>();
  let line = 0;
  entries.forEach((entry, index) => {
    if (isRecord(entry) && entry.type !== "session") lineOf.set(index, ++line);
  });
  for (const entry of entries) {
    if (!isRecord(entry) || entry.type !== "compaction") continue;
    if (typeof entry.firstKeptEntryIndex !== "number") continue;
    entry.firstKeptEntryIndex = lineOf.get(entry.firstKeptEntryIndex) ?? 0;
  }
}

function isRecord(value: unknown): value is Raw {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
