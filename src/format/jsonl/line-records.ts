import { isAscii, isUtf8 } from "node:buffer";
import type { BytePart, IssueCode, IssueSeverity } from "../../core/issues.js";
import { bomLength, type RawLine } from "./lines.js";
import { type GluedPart, splitGlued } from "./split-glued.js";

/** A JSON value read from a line; `part` says which bytes of the line, when the line held several. */
export interface LineRecord {
  value: unknown;
  part: BytePart | null;
}

/** What a line told about itself beyond its records: reported by every reader with the same words. */
export interface LineIssue {
  code: Extract<IssueCode, "invalid_utf8" | "invalid_json" | "glued_records">;
  severity: IssueSeverity;
  message: string;
  part?: BytePart;
}

/**
 * The JSON values of one session line, each to be checked as an entry (or the header) by the
 * caller. One, as a rule, after a single `JSON.parse`. When that fails, the line is split into the
 * records glued on it (split-glued.ts): every part that parses is returned, the split is reported
 * (`glued_records`, a warning: nothing is lost, `repair` writes them as separate lines) and every
 * part that does not parse is reported as `invalid_json` with its bytes. A line where no part
 * parses gives no value and the one `invalid_json` it always gave.
 */
export function readLineRecords(raw: RawLine, report: (issue: LineIssue) => void): LineRecord[] {
  const text = lineText(raw.bytes);
  if (text === null) return splitUndecodable(raw, report);
  try {
    return [{ value: JSON.parse(text), part: null }];
  } catch (error) {
    return splitLine(raw.line, text, (error as Error).message, report);
  }
}

/**
 * How to make strings of whole lines known to be valid, checked once for all of them (a check per
 * line costs more than the check itself on short lines): "latin1" when every byte is ASCII (a
 * one-byte string, which JSON.parse also reads faster), "utf8" when the bytes are valid UTF-8, null
 * when they are not (read line by line then, to say which line is not).
 */
export function wholeLinesEncoding(bytes: Buffer): "latin1" | "utf8" | null {
  if (isAscii(bytes)) return "latin1";
  return isUtf8(bytes) ? "utf8" : null;
}

/**
 * The line as a string; null when it is not valid UTF-8. Most lines are ASCII (JSON.stringify
 * escapes nothing else, but pi writes text as is): those are made a one-byte string directly, which
 * JSON.parse also reads faster; the rest are validated first, since `toString` would replace bad
 * bytes silently.
 */
function lineText(bytes: Buffer): string | null {
  if (isAscii(bytes)) return bytes.toString("latin1");
  if (!isUtf8(bytes)) return null;
  // A byte order mark is not part of the text (TextDecoder, used before, dropped it too).
  return bytes.toString("utf8", bomLength(bytes));
}

/**
 * A line that is not valid UTF-8: as a rule a torn write cut inside a character (pi writes text as
 * is), maybe with whole records glued beside it. The same JSON-aware split runs over the bytes (as
 * latin1, one character per byte: the structure it follows is ASCII), and each record that is valid
 * UTF-8 and parses is kept; each other part is reported with its bytes. A line with no such record
 * is refused whole as before: a damaged copy of an entry never stands in for it.
 */
function splitUndecodable(raw: RawLine, report: (issue: LineIssue) => void): LineRecord[] {
  const bytes = raw.bytes;
  const parts = splitGlued(bytes.toString("latin1"), (start, end) => {
    const piece = bytes.subarray(start, end);
    if (!isUtf8(piece)) throw new Error("not valid UTF-8");
    return JSON.parse(piece.toString("utf8"));
  });
  if (!parts.some((part) => part.kind === "value")) {
    report({ code: "invalid_utf8", severity: "error", message: `Line ${raw.line} is not valid UTF-8` });
    return [];
  }
  const where = parts.map((part) => ({ start: part.start, end: part.end }));
  return recordsOfParts(raw.line, parts, where, report, (part, at) =>
    isUtf8(bytes.subarray(at.start, at.end))
      ? { code: "invalid_json", reason: part.reason }
      : { code: "invalid_utf8", reason: "not valid UTF-8" },
  );
}

function splitLine(
  line: number,
  text: string,
  wholeLineError: string,
  report: (issue: LineIssue) => void,
): LineRecord[] {
  const parts = splitGlued(text);
  if (!parts.some((part) => part.kind === "value")) {
    report({
      code: "invalid_json",
      severity: "error",
      message: `Line ${line} is not JSON: ${wholeLineError}`,
    });
    return [];
  }
  return recordsOfParts(line, parts, byteParts(text, parts), report, (part) => ({
    code: "invalid_json",
    reason: part.reason,
  }));
}

/**
 * The records of a line split into parts (`where`: each part's bytes in the line), at least one
 * of them a value: the split is reported (`glued_records`), and each damaged part as `damage` says.
 */
function recordsOfParts(
  line: number,
  parts: readonly GluedPart[],
  where: readonly BytePart[],
  report: (issue: LineIssue) => void,
  damage: (
    part: Extract<GluedPart, { kind: "damaged" }>,
    at: BytePart,
  ) => { code: "invalid_json" | "invalid_utf8"; reason: string },
): LineRecord[] {
  const values = parts.filter((part) => part.kind === "value").length;
  report({
    code: "glued_records",
    severity: "warning",
    message: gluedMessage(
      line,
      values,
      parts.length - values,
      where.filter((_, i) => parts[i]?.kind === "value"),
    ),
  });
  const records: LineRecord[] = [];
  parts.forEach((part, i) => {
    const at = where[i] as BytePart;
    if (part.kind === "value") records.push({ value: part.value, part: at });
    else {
      const { code, reason } = damage(part, at);
      report({
        code,
        severity: "error",
        message: `Line ${line}: bytes ${at.start}–${at.end} of the line are not a record: ${reason}`,
        part: at,
      });
    }
  });
  return records;
}

/** "Line 7: 2 records on one line (at bytes 0 and 539 of the line)". */
function gluedMessage(line: number, records: number, damaged: number, at: BytePart[]): string {
  const count = `${records} record${records === 1 ? "" : "s"}`;
  const besides = damaged === 0 ? "" : ` and ${damaged} damaged part${damaged === 1 ? "" : "s"}`;
  const starts = at.map((part) => part.start);
  const list =
    starts.length === 1
      ? `${starts[0]}`
      : `${starts.slice(0, -1).join(", ")} and ${starts[starts.length - 1]}`;
  return `Line ${line}: ${count}${besides} on one line (at byte${starts.length === 1 ? "" : "s"} ${list} of the line)`;
}

/** The parts' byte ranges in the line (parts are found by character, issues speak in bytes). */
function byteParts(text: string, parts: readonly GluedPart[]): BytePart[] {
  let char = 0;
  let byte = 0;
  const toByte = (position: number): number => {
    byte += Buffer.byteLength(text.slice(char, position), "utf8");
    char = position;
    return byte;
  };
  return parts.map((part) => ({ start: toByte(part.start), end: toByte(part.end) }));
}
