import { CURRENT_SESSION_VERSION, type SessionEntry, type SessionHeader } from "../../core/entry.js";
import type { SessionIssue } from "../../core/issues.js";
import { checkEntry, checkHeader } from "../../core/validate.js";
import { isBlank, LineSplitter, parseLine, type RawLine } from "./lines.js";
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
  /** Bytes after the last newline, not yet part of the session (a torn write or a write in progress). */
  tornTail: { offset: number; line: number; bytes: Buffer } | null;
  /** Bytes up to and including the last complete line. */
  completeBytes: number;
}

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
  };
  private migrator: StreamingMigrator | null = null;
  private sawHeaderLine = false;

  /**
   * By default the first line is the header. A reader catching up on lines another process
   * appended passes `resume`: numbering continues there and no header is expected.
   */
  constructor(resume?: { line: number; offset: number }) {
    this.splitter = new LineSplitter((line) => this.onLine(line), resume);
    this.sawHeaderLine = resume !== undefined && resume.line > 0;
  }

  push(chunk: Buffer): void {
    this.splitter.push(chunk);
  }

  finish(options: DecodeOptions = {}): DecodedSession {
    const tail = this.splitter.tail();
    if (tail && !isBlank(tail.bytes)) {
      if (options.tailIsTorn) {
        this.result.tornTail = tail;
        this.result.issues.push({
          code: "torn_tail",
          severity: "warning",
          message: `Line ${tail.line} (${tail.bytes.length} bytes) has no newline: an interrupted write, not part of the session`,
          line: tail.line,
          offset: tail.offset,
        });
      } else {
        this.onLine(tail);
      }
    }
    this.result.completeBytes = this.splitter.completeBytes;
    this.result.completeLines = this.splitter.completeLines;
    return this.result;
  }

  private onLine(raw: RawLine): void {
    if (isBlank(raw.bytes)) return;
    const parsed = this.parse(raw);
    if (!this.sawHeaderLine) {
      this.sawHeaderLine = true;
      this.readHeader(parsed, raw);
      return;
    }
    if (parsed === undefined) return;
    if (this.migrator?.needed && isRecord(parsed)) this.migrator.migrate(parsed);
    const checked = checkEntry(parsed);
    if (checked.ok) this.result.entries.push({ entry: checked.value, line: raw.line, offset: raw.offset });
    else this.report("invalid_entry", `Line ${raw.line}: ${checked.reason}`, raw);
  }

  private parse(raw: RawLine): unknown {
    return parseLine(raw, (code, message) => this.report(code, message, raw));
  }

  private readHeader(parsed: unknown, raw: RawLine): void {
    if (parsed === undefined) {
      this.report("invalid_header", "The header (line 1) cannot be read", raw);
      return;
    }
    const checked = checkHeader(parsed);
    if (!checked.ok) {
      const asEntry = checkEntry(parsed);
      if (asEntry.ok) {
        // The header is gone but the line is an intact entry: keep it, report the missing header.
        this.report("missing_header", "The file has no session header; line 1 is an entry", raw);
        this.result.entries.push({ entry: asEntry.value, line: raw.line, offset: raw.offset });
      } else {
        this.report("invalid_header", `The header (line 1) is not a session header: ${checked.reason}`, raw);
      }
      return;
    }
    const header = checked.value;
    const version = header.version ?? 1;
    if (version < CURRENT_SESSION_VERSION) {
      this.result.migratedFrom = version;
      this.migrator = new StreamingMigrator(version, header.id);
      header.version = CURRENT_SESSION_VERSION;
    }
    this.result.header = header;
  }

  private report(code: SessionIssue["code"], message: string, raw: RawLine): void {
    this.result.issues.push({ code, severity: "error", message, line: raw.line, offset: raw.offset });
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Decodes a whole session given as text or bytes (an import, a test). */
export function decodeSession(input: string | Buffer, options: DecodeOptions = {}): DecodedSession {
  const decoder = new SessionDecoder();
  decoder.push(typeof input === "string" ? Buffer.from(input, "utf8") : input);
  return decoder.finish(options);
}
