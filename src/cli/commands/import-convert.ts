import type { SessionEntry, SessionHeader } from "../../core/entry.js";
import type { SessionIssue } from "../../core/issues.js";
import { type ClaudeImportReport, importClaudeCode } from "../../format/claude-code.js";
import { type CodexImportReport, importCodex } from "../../format/codex.js";
import { decodeSession } from "../../format/jsonl/decode.js";
import { type SniffedFile, sniffSessionText } from "../../format/sniff.js";

/** `import --format`: `auto` goes by what the file is. */
export const IMPORT_FORMATS = ["auto", "claude", "pi", "codex"] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** A source file as a session, before it is written. */
export interface Converted {
  format: "pi" | "claude-code" | "codex";
  header: SessionHeader;
  entries: SessionEntry[];
  /** Where the source's conversation stands (null: as the entries' order says). */
  leafId: string | null;
  /** The session's name as the source says it, for a re-import to update. */
  name?: string;
  /** Entries the import made up (a name, a leaf marker): a re-import makes them again as needed. */
  derivedIds: string[];
  /** Lines the source had that the session does not: reported, and the exit status says so. */
  problems: number;
  /** pi v1 files get new entry ids on every read: such a session cannot be appended to by id. */
  stableIds: boolean;
  claude?: ClaudeImportReport;
  codex?: CodexImportReport;
  issues?: SessionIssue[];
}

/** Why a file was not imported, with a stable code (`import --json`: `failed[].code`). */
export class ImportRefusal extends Error {
  constructor(
    readonly code: "empty_session_file" | "format_mismatch" | "not_a_session" | "no_conversation",
    message: string,
  ) {
    super(message);
  }
}

/** The format each kind of file imports as. */
const FORMAT_OF_KIND: Partial<Record<SniffedFile["kind"], Exclude<ImportFormat, "auto">>> = {
  pi: "pi",
  "claude-code": "claude",
  codex: "codex",
};

const FORMAT_NAMES: Record<Exclude<ImportFormat, "auto">, string> = {
  claude: "a Claude Code session",
  pi: "a pi session",
  codex: "a Codex CLI session",
};

/**
 * Converts a source file's text. The file says what it is (`sniffSessionText`); a `--format` that
 * contradicts it is refused with what the file looks like, never imported as an empty shell.
 */
export function convert(text: string, requested: ImportFormat, fileName: string): Converted {
  const file = sniffSessionText(text);
  if (file.kind === "empty")
    throw new ImportRefusal("empty_session_file", `Nothing to import: ${file.description}`);
  const detected = FORMAT_OF_KIND[file.kind];
  const format = requested === "auto" ? detected : requested;
  if (format === undefined)
    throw new ImportRefusal(
      "not_a_session",
      `Not a session of pi, Claude Code or Codex: the file is ${file.description}`,
    );
  if (detected !== undefined && detected !== format) {
    throw new ImportRefusal(
      "format_mismatch",
      `--format ${format} expects ${FORMAT_NAMES[format]}, but the file is ${file.description}: use --format ${detected} (or auto)`,
    );
  }
  if (format === "claude") return fromClaude(text, fileName, file);
  if (format === "codex") return fromCodex(text, fileName, file);
  return fromPi(text, file);
}

function fromClaude(text: string, fileName: string, file: SniffedFile): Converted {
  const { header, entries, leafId, name, derivedIds, report } = importClaudeCode(text, { fileName });
  if (!entries.some((e) => e.type === "message" || e.type === "compaction"))
    throw new ImportRefusal(
      "no_conversation",
      `No Claude Code conversation in the file (${file.description}; ${report.skipped.length} unreadable lines)`,
    );
  return {
    format: "claude-code",
    header,
    entries,
    leafId,
    name,
    derivedIds,
    problems: report.skipped.length,
    stableIds: true,
    claude: report,
  };
}

function fromCodex(text: string, fileName: string, file: SniffedFile): Converted {
  const { header, entries, leafId, derivedIds, report } = importCodex(text, { fileName });
  if (!entries.some((e) => e.type === "message"))
    throw new ImportRefusal("no_conversation", `No Codex conversation in the file (${file.description})`);
  return {
    format: "codex",
    header,
    entries,
    leafId,
    derivedIds,
    problems: report.skipped.length,
    stableIds: true,
    codex: report,
  };
}

function fromPi(text: string, file: SniffedFile): Converted {
  const decoded = decodeSession(text);
  if (!decoded.header)
    throw new ImportRefusal(
      "not_a_session",
      `Not a pi session (no session header): the file is ${file.description}`,
    );
  return {
    format: "pi",
    header: decoded.header,
    entries: decoded.entries.map((e) => e.entry),
    leafId: null,
    derivedIds: [],
    // Warnings lose nothing (records glued on one line are each imported): only errors are lines left out.
    problems: decoded.issues.filter((issue) => issue.severity === "error").length,
    stableIds: decoded.migratedFrom !== 1,
    issues: decoded.issues,
  };
}
