import { existsSync, readFileSync } from "node:fs";
import type { SessionEntry, SessionHeader } from "../core/entry.js";
import type { SessionIssue } from "../core/issues.js";
import { checkHeader } from "../core/validate.js";
import { readLineRecords } from "../format/jsonl/line-records.js";
import { isBlank, LineSplitter, type RawLine } from "../format/jsonl/lines.js";

/** A line of a session file as pi's module-level functions hand it out: the header or an entry. */
export type FileEntry = SessionHeader | SessionEntry;

/** Told about every line that gave no record (or more than one), with its line number and offset. */
export type ParseIssueListener = (issue: SessionIssue) => void;

/**
 * pi's `parseSessionEntries`: the JSON value of every non-blank line, in file order, as written
 * (not checked, not migrated: `migrateSessionEntries` does that). A line that is not JSON gives
 * nothing, as in pi, but is reported to `onIssue` when given. Unlike pi, a line holding several
 * records glued together (a lost newline) gives each of them instead of nothing.
 */
export function parseSessionEntries(content: string, onIssue?: ParseIssueListener): FileEntry[] {
  return rawRecords(Buffer.from(content, "utf8"), onIssue) as FileEntry[];
}

/**
 * pi's `loadEntriesFromFile`: the file's records as `parseSessionEntries` reads them, or none when
 * the file is missing, empty or does not start with a session header.
 */
export function loadEntriesFromFile(filePath: string, onIssue?: ParseIssueListener): FileEntry[] {
  if (!existsSync(filePath)) return [];
  const records = rawRecords(readFileSync(filePath), onIssue);
  if (records.length === 0) return [];
  return checkHeader(records[0]).ok ? (records as FileEntry[]) : [];
}

/** The JSON values of every line of `bytes`, an unterminated last line included. */
function rawRecords(bytes: Buffer, onIssue: ParseIssueListener | undefined): unknown[] {
  const values: unknown[] = [];
  const onLine = (raw: RawLine) => {
    if (isBlank(raw.bytes)) return;
    const records = readLineRecords(raw, (issue) => {
      const placed: SessionIssue = {
        code: issue.code,
        severity: issue.severity,
        message: issue.message,
        line: raw.line,
        offset: raw.offset,
      };
      if (issue.part) placed.part = issue.part;
      onIssue?.(placed);
    });
    for (const record of records) values.push(record.value);
  };
  const splitter = new LineSplitter(onLine);
  splitter.push(bytes);
  const tail = splitter.tail();
  if (tail) onLine(tail);
  return values;
}
