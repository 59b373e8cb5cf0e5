import { headerVersion, isKnownEntryType } from "../core/entry.js";
import { parseObject, type Raw } from "./claude-code-content.js";
import { isClaudeRecord, isSubagentFile } from "./claude-code-meta.js";
import { looksLikeCodex } from "./codex.js";

/**
 * What a file is, from its text alone: the one answer every command gives when a file is not what
 * it expected (`import --format`, `show`, `tree`, `export`, `fsck`). Pure: the caller reads.
 */
export type SessionFileKind = "empty" | "pi" | "claude-code" | "codex" | "jsonl" | "not-jsonl";

export interface SniffedFile {
  kind: SessionFileKind;
  /** Non-blank lines: the records of a JSON-lines file, damaged ones included. */
  records: number;
  /** pi: the version its header says (1 when it says none); null when the header is missing or damaged. */
  version?: number | null;
  /** claude-code: a subagent's own file (every conversational line a sidechain). */
  subagent?: boolean;
  /** For people: "a Claude Code session (1,019 records)". */
  description: string;
}

export interface SniffOptions {
  /** The text is the head of a longer file: its last line may be cut and is not looked at. */
  partial?: boolean;
  /** The file's record count, when the text is only its head. */
  totalRecords?: number;
}

/** How many non-blank lines are looked at to decide. */
const SAMPLE = 50;

export function sniffSessionText(text: string, options: SniffOptions = {}): SniffedFile {
  const lines = nonBlankLines(text, options.partial === true);
  const records = options.totalRecords ?? lines.length;
  if (records === 0) return { kind: "empty", records, description: emptyDescription(text) };
  const sample = lines.slice(0, SAMPLE);
  const parsed = sample.map(parseObject).filter((r): r is Raw => r !== undefined);
  const header = parseObject(sample[0] ?? "");
  const kind = (k: SessionFileKind, extra: Partial<SniffedFile> = {}): SniffedFile => {
    const found = { kind: k, records, ...extra };
    return { ...found, description: describeKind(found) };
  };
  if (header?.type === "session" && typeof header.id === "string")
    return kind("pi", { version: headerVersion(header) });
  if (parsed.some(isClaudeRecord)) return kind("claude-code", { subagent: isSubagentFile(sample) });
  if (looksLikeCodex(text)) return kind("codex");
  if (parsed.length === 0) return kind("not-jsonl");
  if (parsed.filter(isPiEntry).length * 2 >= parsed.length) return kind("pi", { version: null });
  return kind("jsonl");
}

/** A pi entry line (v2/v3 ids): what is left of a pi session whose header is missing or damaged. */
function isPiEntry(record: Raw): boolean {
  return typeof record.type === "string" && isKnownEntryType(record.type) && typeof record.id === "string";
}

/** "a Claude Code session (1,019 records)" and its kin. */
export function describeKind(file: Omit<SniffedFile, "description">): string {
  const n = count(file.records, "record");
  switch (file.kind) {
    case "empty":
      return "an empty file";
    case "pi":
      return file.version === null || file.version === undefined
        ? `a pi session whose header is missing or damaged (${n})`
        : `a pi session (v${file.version}, ${n})`;
    case "claude-code":
      return file.subagent ? `a Claude Code subagent session (${n})` : `a Claude Code session (${n})`;
    case "codex":
      return `a Codex CLI session (${n})`;
    case "jsonl":
      return `JSON lines, but not a session of pi, Claude Code or Codex (${n})`;
    case "not-jsonl":
      return `not JSON lines (${count(file.records, "line")} of text)`;
  }
}

function emptyDescription(text: string): string {
  return text.length === 0 ? "an empty file" : "an empty file (only blank lines)";
}

/** "1 record", "1,019 records". */
export function count(n: number, noun: string): string {
  const digits = String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return `${digits} ${noun}${n === 1 ? "" : "s"}`;
}

function nonBlankLines(text: string, partial: boolean): string[] {
  const lines = text.split("\n");
  if (partial) lines.pop();
  return lines.filter((line) => line.trim() !== "");
}
