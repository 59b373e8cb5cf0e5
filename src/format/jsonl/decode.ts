import {
  CURRENT_SESSION_VERSION,
  headerVersion,
  type SessionEntry,
  type SessionHeader,
} from "../../core/entry.js";
import type { BytePart, SessionIssue } from "../../core/issues.js";
import { type CheckedRead, checkEntryRead, checkHeader, malformedNote } from "../../core/validate.js";
import { type LineIssue, readLineRecords, wholeLinesEncoding } from "./line-records.js";
import { isBlank, LineSplitter, type RawLine } from "./lines.js";
import { StreamingMigrator } from "./migrate.js";

/** An entry with the place it was read from. */
export interface PositionedEntry {
  entry: SessionEntry;
  line: number;
  offset: number;
}

export interface DecodedSession {
  /** Complete lines read (blank ones included): where a later reader resumes numbering. */
  completeLines: number;
  /** The header, migrated to v3 in memory; null when line 1 is missing or unreadable. */
  header: SessionHeader | null;
  /** Valid entries in file order (duplicates included: the tree decides about them). */
  entries: PositionedEntry[];
  /** Lines that were kept out, with line numbers and byte offsets. Nothing is dropped silently. */
  issues: SessionIssue[];
  /** The version the file was written in, when it was older than v3 (it was migrated in memory). */
  migratedFrom: number | null;
  /**
   * Bytes after the last newline, not yet part of the session (a torn write or a write in progress),
   * with the entries it holds whole (a record that lost only its newline; several glued), which
   * `repair` keeps.
   */
  tornTail: { offset: number; line: number; bytes: Buffer; entries: SessionEntry[] } | null;
  /**
   * Bytes read: up to and including the last complete line, or to the end of the file when its
   * last line has no newline but holds complete records (`endsMidLine`).
   */
  completeBytes: number;
  /**
   * The file's last line has no newline yet its records are whole and were read, as pi reads them
   * (a file another tool wrote without a final newline): a writer puts the newline before its lines.
   */
  endsMidLine: boolean;
}

/**
 * Takes each valid entry as it is read, instead of collecting them in `entries` (which then stays
 * empty): a reader that builds its tree while it reads keeps no second list of a large file.
 */
export type EntrySink = (entry: SessionEntry, line: number, offset: number) => void;

export interface DecodeOptions {
  /**
   * Whether an unterminated last line is a torn write (files: true) or simply the last line of a
   * text given whole (imports, tests: false, the default for strings).
   */
  tailIsTorn?: boolean;
}

/**
 * Decodes a session chunk by chunk: feed bytes with `push`, then `finish`. The header is checked,
 * older formats are migrated on the fly, every line that is not a valid entry becomes an issue.
 */
export class SessionDecoder {
  private readonly splitter: LineSplitter;
  private readonly result: DecodedSession = {
    completeLines: 0,
    header: null,
    entries: [],
    issues: [],
    migratedFrom: null,
    tornTail: null,
    completeBytes: 0,
    endsMidLine: false,
  };
  private migrator: StreamingMigrator | null = null;
  /** Whether the header's place is taken: by the header, or by the line that should have been it. */
  private sawHeaderLine = false;
  /** The first line that held no record, while no record has come after it: see `onLine`. */
  private unreadFirstLine: LinePlace | null = null;

  /**
   * By default the first line is the header. A reader catching up on lines another process
   * appended passes `resume`: numbering continues there and no header is expected.
   */
  constructor(resume?: { line: number; offset: number }, sink?: EntrySink) {
    this.splitter = new LineSplitter((line) => this.onLine(line), resume);
    this.sawHeaderLine = resume !== undefined && resume.line > 0;
    this.sink = sink ?? ((entry, line, offset) => this.result.entries.push({ entry, line, offset }));
  }

  /** Where valid entries go: `entries` of the result, or the caller's sink. */
  private readonly sink: EntrySink;

  /**
   * The complete lines of a chunk are checked for UTF-8 at once and parsed straight from the
   * chunk (no buffer view, line record or record list per line); a line whose `JSON.parse` fails,
   * and a chunk that is not valid UTF-8, take the line-by-line path, which reports exactly what
   * it always did. The line a chunk ends inside waits in the splitter.
   */
  push(chunk: Buffer): void {
    let start = 0;
    if (this.splitter.hasPending) {
      const newline = chunk.indexOf(10);
      if (newline === -1) {
        this.splitter.push(chunk);
        return;
      }
      this.splitter.push(chunk.subarray(0, newline + 1));
      start = newline + 1;
    }
    const end = chunk.lastIndexOf(10) + 1;
    if (end > start) {
      this.pushLines(chunk.subarray(start, end));
      start = end;
    }
    if (start < chunk.length) this.splitter.push(chunk.subarray(start));
  }

  /** `bytes` is whole lines, each ending with its newline. */
  private pushLines(bytes: Buffer): void {
    const encoding = wholeLinesEncoding(bytes);
    if (encoding === null) {
      this.splitter.push(bytes);
      return;
    }
    for (let start = 0; start < bytes.length; ) {
      const newline = bytes.indexOf(10, start);
      this.onCheckedLine(bytes, start, newline, encoding);
      start = newline + 1;
    }
  }

  /**
   * One line of `pushLines`, bytes `start`–`newline`, already known to be valid in `encoding`.
   * Each line is made a string of its own: `JSON.parse` reads that faster than a slice of a
   * string of the whole chunk (measured).
   */
  private onCheckedLine(bytes: Buffer, start: number, newline: number, encoding: "latin1" | "utf8"): void {
    const line = this.splitter.completeLines + 1;
    const offset = this.splitter.completeBytes;
    this.splitter.countLine(newline - start + 1);
    const end = newline > start && bytes[newline - 1] === 13 ? newline - 1 : newline;
    if (bytes[start] !== OPEN_BRACE && isBlank(bytes.subarray(start, end))) return;
    let value: unknown;
    try {
      value = JSON.parse(bytes.toString(encoding, start, end));
    } catch {
      this.onLine({ bytes: bytes.subarray(start, end), line, offset });
      return;
    }
    this.onRecord(value, line, offset, null);
  }

  /** Whether the header's place is settled: the header was read, or something else took its place. */
  get pastHeader(): boolean {
    return this.sawHeaderLine;
  }

  finish(options: DecodeOptions = {}): DecodedSession {
    this.result.completeBytes = this.splitter.completeBytes;
    this.result.completeLines = this.splitter.completeLines;
    const tail = this.splitter.tail();
    if (tail && !isBlank(tail.bytes)) {
      const held = options.tailIsTorn ? this.readTail(tail) : null;
      if (held === "read") {
        this.result.completeBytes = tail.offset + tail.bytes.length;
        this.result.completeLines = tail.line;
        this.result.endsMidLine = true;
      } else if (held !== null) {
        this.result.tornTail = { ...tail, entries: held };
        this.result.issues.push({
          code: "torn_tail",
          severity: "warning",
          message: tornTailMessage(tail, held.length),
          line: tail.line,
          offset: tail.offset,
        });
      } else {
        this.onLine(tail);
      }
    }
    this.settleUnreadHeader();
    return this.result;
  }

  /**
   * An unterminated last line. Read as part of the session ("read") when it is nothing but whole,
   * valid records (the header, on line 1): a JSON object cannot be continued once closed, so its
   * writer can only add the newline (or another record, then glued to it and read as such); pi
   * reads such a line too. Anything else on it (a cut record, an invalid entry) makes it a torn
   * tail: then the entries it holds whole, which `repair` keeps (none for a line 1), its problems
   * unreported (the torn tail is the report). Each record is migrated and checked once.
   */
  private readTail(tail: RawLine): SessionEntry[] | "read" {
    const issues: LineIssue[] = [];
    const records = readLineRecords(tail, (issue) => issues.push(issue));
    let whole = records.length > 0 && issues.every((issue) => issue.code === "glued_records");
    let header = this.sawHeaderLine ? null : checkHeader(records[0]?.value);
    // After a line that held no record, only a header takes the header's place: anything else is
    // read as the entries after a damaged header.
    if (header && !header.ok && this.settleUnreadHeader()) header = null;
    // An older header would migrate the entries glued after it: such a line stays a torn tail.
    if (
      header &&
      (!header.ok || (headerVersion(header.value) < CURRENT_SESSION_VERSION && records.length > 1))
    )
      return [];
    const kept: Array<CheckedRead & { ok: true }> = [];
    for (const { value } of records.slice(header ? 1 : 0)) {
      if (this.migrator?.needed && isRecord(value)) this.migrator.migrate(value);
      const checked = checkEntryRead(value);
      if (checked.ok) kept.push(checked);
      else whole = false;
    }
    if (!whole) return header ? [] : kept.map((checked) => checked.value);
    for (const issue of issues) this.report(issue, tail);
    if (header) this.onRecord(records[0]?.value, tail.line, tail.offset, records[0]?.part ?? null);
    for (const checked of kept) this.keep(checked, tail.line, tail.offset, null);
    this.result.issues.push({
      code: "unterminated_line",
      severity: "info",
      message: `Line ${tail.line} (${tail.bytes.length} bytes) ends the file without a newline; its ${records.length === 1 ? "record is" : "records are"} whole and read (the next append puts the newline first)`,
      line: tail.line,
      offset: tail.offset,
    });
    return "read";
  }

  private onLine(raw: RawLine): void {
    if (isBlank(raw.bytes)) return;
    const records = readLineRecords(raw, (issue) => this.report(issue, raw));
    // A line that holds no record does not take the header's place yet: a writer that died while
    // writing the header may have written it whole on the next line, and pi (which skips what
    // does not parse) reads the session under that one. The line stays reported (`invalid_json`).
    if (records.length === 0 && !this.sawHeaderLine)
      this.unreadFirstLine ??= { line: raw.line, offset: raw.offset };
    // Several records on one line are read as if the newline between them were there.
    for (const { value, part } of records) this.onRecord(value, raw.line, raw.offset, part);
  }

  private onRecord(value: unknown, line: number, offset: number, part: BytePart | null): void {
    if (!this.sawHeaderLine && this.unreadFirstLine !== null && !checkHeader(value).ok)
      this.settleUnreadHeader();
    if (this.sawHeaderLine) this.readEntry(value, line, offset, part);
    else {
      this.sawHeaderLine = true;
      this.readHeader(value, { line, offset }, part);
    }
  }

  /**
   * The first line held no record and no header came after it (an entry did, or nothing): that
   * line was the header, damaged, and is reported so. False when there is nothing to settle.
   */
  private settleUnreadHeader(): boolean {
    const place = this.unreadFirstLine;
    if (place === null || this.sawHeaderLine) return false;
    this.sawHeaderLine = true;
    this.report({ code: "invalid_header", message: "The header (line 1) cannot be read" }, place);
    return true;
  }

  private readEntry(parsed: unknown, line: number, offset: number, part: BytePart | null): void {
    if (this.migrator?.needed && isRecord(parsed)) this.migrator.migrate(parsed);
    const checked = checkEntryRead(parsed);
    if (checked.ok) this.keep(checked, line, offset, part);
    else
      this.report(
        { code: "invalid_entry", message: `${placeOf(line, part)}: ${checked.reason}`, part },
        { line, offset },
      );
  }

  /** An entry read: into the session, and reported when malformed (kept, nothing derived from it). */
  private keep(
    checked: CheckedRead & { ok: true },
    line: number,
    offset: number,
    part: BytePart | null,
  ): void {
    if (checked.malformed !== undefined)
      this.report(malformedIssue(checked.value, checked.malformed, line, part), { line, offset });
    this.sink(checked.value, line, offset);
  }

  private readHeader(parsed: unknown, raw: LinePlace, part: BytePart | null): void {
    const checked = checkHeader(parsed);
    if (!checked.ok) {
      const asEntry = checkEntryRead(parsed);
      if (asEntry.ok) {
        // The header is gone but the line is an intact entry: keep it, report the missing header.
        this.report(
          { code: "missing_header", message: "The file has no session header; line 1 is an entry" },
          raw,
        );
        this.keep(asEntry, raw.line, raw.offset, part);
      } else {
        this.report(
          {
            code: "invalid_header",
            message: `The header (line 1) is not a session header: ${checked.reason}`,
            part,
          },
          raw,
        );
      }
      return;
    }
    const header = checked.value;
    const version = headerVersion(header);
    if (version < CURRENT_SESSION_VERSION) {
      this.result.migratedFrom = version;
      this.migrator = new StreamingMigrator(version, header.id);
      header.version = CURRENT_SESSION_VERSION;
    }
    this.result.header = header;
  }

  private report(issue: ReadIssue, raw: LinePlace): void {
    const { code, severity = "error", message, part } = issue;
    const placed: SessionIssue = { code, severity, message, line: raw.line, offset: raw.offset };
    if (part) placed.part = part;
    this.result.issues.push(placed);
  }
}

/** The warning for an entry kept though its own fields are missing or wrong. */
function malformedIssue(
  entry: SessionEntry,
  malformed: string,
  line: number,
  part: BytePart | null,
): ReadIssue {
  const message = `${placeOf(line, part)}: ${malformedNote(entry, malformed)}`;
  return { code: "malformed_entry", severity: "warning", message, part };
}

/** An issue of one line, before its line number and offset are added. */
interface ReadIssue {
  code: SessionIssue["code"];
  severity?: SessionIssue["severity"];
  message: string;
  part?: BytePart | null;
}

function tornTailMessage(tail: RawLine, entries: number): string {
  const torn = `Line ${tail.line} (${tail.bytes.length} bytes) has no newline: an interrupted write, not part of the session`;
  if (entries === 0) return torn;
  const held =
    entries === 1 ? "a complete entry" : `${entries} complete entries (${entries} records on one line)`;
  return `${torn}; it holds ${held}, which repair keeps`;
}

/** "Line 7", or "Line 7, bytes 539–7612" for one of several records on the line. */
function placeOf(line: number, part: BytePart | null): string {
  return part ? `Line ${line}, bytes ${part.start}–${part.end}` : `Line ${line}`;
}

/** Where a line is: what an issue names. */
type LinePlace = Pick<RawLine, "line" | "offset">;

const OPEN_BRACE = 0x7b;

/**
 * How whole lines are made strings, checked once for all of them: ASCII (most session text) as
 * one-byte strings directly, valid UTF-8 decoded; null when not valid UTF-8 (the line-by-line
 * path then says which line).
 */
function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Decodes a whole session given as text or bytes (an import, a test). */
export function decodeSession(input: string | Buffer, options: DecodeOptions = {}): DecodedSession {
  const decoder = new SessionDecoder();
  decoder.push(typeof input === "string" ? Buffer.from(input, "utf8") : input);
  return decoder.finish(options);
}

/**
 * The header of a session from the first bytes of its file (`head`, which may end inside a line),
 * by the decoder's own rules (blank lines and a byte order mark before it, a line holding no
 * record before it), parsing only the lines up to it; null when something else takes its place.
 */
export function decodeHeader(head: Buffer): SessionHeader | null {
  const decoder = new SessionDecoder(undefined, () => {});
  let start = 0;
  for (let newline = head.indexOf(10); newline !== -1 && !decoder.pastHeader; ) {
    decoder.push(head.subarray(start, newline + 1));
    start = newline + 1;
    newline = head.indexOf(10, start);
  }
  // A header that is the head's last line without a newline (the whole file) is read, a cut one not.
  if (!decoder.pastHeader) decoder.push(head.subarray(start));
  return decoder.finish({ tailIsTorn: true }).header;
}
