import { isObject, type Raw, str } from "./codex-content.js";

/**
 * The lines of a Codex rollout as one shape, whatever the version that wrote them:
 *
 * - since Codex CLI 0.4x (autumn 2025): `{"timestamp", "type", "payload"}` envelopes, `type` one of
 *   session_meta, response_item, event_msg, turn_context, compacted (newer versions add more);
 * - before that (Rust Codex CLI of mid 2025): a bare header `{id, timestamp, instructions, cwd?,
 *   originator?, cli_version?, git?}`, `{"record_type":"state"}` markers and bare response items
 *   `{type: "message" | "reasoning" | "function_call" | ...}` with no timestamp of their own.
 */
export type RecordKind =
  | "session_meta"
  | "response_item"
  | "event_msg"
  | "turn_context"
  | "compacted"
  | "state"
  /** An envelope of a type this importer does not know, or an object of no known shape. */
  | "unknown";

export interface CodexRecord {
  line: number;
  kind: RecordKind;
  /** The envelope's `type` (or "record" for an object of no known shape). */
  type: string;
  payload: Raw;
  timestamp: string | undefined;
  /** The line as read, for records kept whole. */
  raw: Raw;
}

export type ParsedLine = { ok: true; record: CodexRecord } | { ok: false; line: number; reason: string };

/** Entry ids: `cx` and the line number, padded to pi's 8 characters; stable across re-imports. */
export function lineId(line: number, suffix = ""): string {
  return `cx${String(line).padStart(6, "0")}${suffix}`;
}

const ENVELOPE_KINDS = new Set<string>([
  "session_meta",
  "response_item",
  "event_msg",
  "turn_context",
  "compacted",
]);

export function parseLines(text: string): ParsedLine[] {
  const lines = text.split("\n");
  let last = lines.length;
  while (last > 0 && (lines[last - 1] as string).trim() === "") last--;
  const out: ParsedLine[] = [];
  let sawHeader = false;
  for (let i = 0; i < last; i++) {
    const source = (lines[i] as string).trim();
    if (source === "") continue;
    const line = i + 1;
    const value = parseJson(source);
    if (!isObject(value)) {
      const what = value === undefined ? "not JSON" : "not a JSON object";
      out.push({
        ok: false,
        line,
        reason: i === last - 1 && value === undefined ? `${what} (torn last line)` : what,
      });
      continue;
    }
    const record = classify(value, line, sawHeader);
    if (record.kind === "session_meta") sawHeader = true;
    out.push({ ok: true, record });
  }
  return out;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function classify(value: Raw, line: number, sawHeader: boolean): CodexRecord {
  const type = str(value.type);
  const base = { line, raw: value, timestamp: str(value.timestamp) };
  if (type && isObject(value.payload)) {
    const kind = ENVELOPE_KINDS.has(type) ? (type as RecordKind) : "unknown";
    return { ...base, kind, type, payload: value.payload };
  }
  if (value.record_type === "state") return { ...base, kind: "state", type: "state", payload: value };
  if (type) return { ...base, kind: "response_item", type: "response_item", payload: value };
  if (!sawHeader && str(value.id) && str(value.timestamp))
    return { ...base, kind: "session_meta", type: "session_meta", payload: value };
  return { ...base, kind: "unknown", type: "record", payload: value };
}

const LEGACY_ITEM_TYPES = new Set([
  "message",
  "reasoning",
  "function_call",
  "function_call_output",
  "local_shell_call",
]);

/** True when the text looks like a Codex rollout, of any version (rather than a pi or Claude Code session). */
export function looksLikeCodexText(text: string): boolean {
  let seen = 0;
  for (const source of text.split("\n")) {
    if (source.trim() === "") continue;
    if (++seen > 20) break;
    const value = parseJson(source.trim());
    if (!isObject(value)) continue;
    if (value.type === "session") return false; // a pi header
    if ("uuid" in value || "parentUuid" in value || "sessionId" in value) return false; // Claude Code
    const type = str(value.type);
    if (type && ENVELOPE_KINDS.has(type) && isObject(value.payload)) return true;
    if (value.record_type === "state") return true;
    if (type === undefined && str(value.id) && str(value.timestamp) && isLegacyHeader(value)) return true;
    if (type && LEGACY_ITEM_TYPES.has(type) && (Array.isArray(value.content) || str(value.call_id)))
      return true;
  }
  return false;
}

function isLegacyHeader(value: Raw): boolean {
  return "instructions" in value || "originator" in value || "cli_version" in value || "git" in value;
}
