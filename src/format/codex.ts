import {
  CURRENT_SESSION_VERSION,
  LEAF_MARKER_TYPE,
  type SessionEntry,
  type SessionHeader,
} from "../core/entry.js";
import { newSessionId } from "../core/session-id.js";
import { stampDraft } from "../core/stamp.js";
import { contentText, isHarnessText, type Raw, str, toThinkingBlock } from "./codex-content.js";
import { CodexImporter, type CodexImportReport, PENDING_TIME } from "./codex-importer.js";
import { type CodexRecord, looksLikeCodexText, parseLines } from "./codex-records.js";

export type { CodexImportReport } from "./codex-importer.js";

/**
 * Codex CLI rollout files (`~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl`) into a pi
 * v3 session: one chain of entries in file order, ids `cx<line>` (stable, so a re-import of a
 * grown file finds the same entries), branched only where Codex rolled turns back.
 *
 * - The session meta (or, in early files, the bare header line) gives the session id, cwd and
 *   start time, and is kept whole as a `codex.session_meta` custom entry.
 * - User messages become pi user messages; the model's items between two inputs (reasoning,
 *   messages, tool calls) become one assistant message: reasoning summaries as thinking (encrypted
 *   reasoning rides in `thinkingSignature`, as pi's openai-responses provider keeps it), tool calls
 *   (function, custom/freeform, local shell, tool search) as toolCall blocks. Each output becomes
 *   a toolResult paired by `call_id`; an output with no call is kept as `codex.orphan_output`
 *   (Codex never sends those to the model), a call with no output stays and is reported.
 * - Turn contexts set the model (`model_change`) and reasoning effort (`thinking_level_change`);
 *   token counts give the assistant message its usage; a `compacted` record becomes a compaction.
 * - A rollback (`thread_rolled_back`, Codex's undo of its last turns) keeps the turns it drops on
 *   the branch they were on: the next entry hangs where the first dropped turn began, and a leaf
 *   marker says so when nothing follows.
 * - Developer messages and the user-role messages Codex writes itself (AGENTS.md instructions,
 *   environment context) are kept as `codex.developer` / `codex.context` custom entries, out of the
 *   context: they are Codex's harness prompt, and pi brings its own on resume.
 * - Other records (web searches, unknown types) are `codex.<type>` custom entries; lines that are
 *   not JSON objects (a torn last line) are reported. Nothing is dropped silently.
 */
export interface CodexImportResult {
  header: SessionHeader;
  /** Entries in file order, each the child of the one before (after a rollback: see above). */
  entries: SessionEntry[];
  leafId: string | null;
  /** Ids of entries the import made up (a leaf marker) rather than read from a line. */
  derivedIds: string[];
  report: CodexImportReport;
}

export interface CodexImportOptions {
  /** The rollout's file name: its uuid is the session id when the file has no session meta. */
  fileName?: string;
  /** The session id to give the result; default: the file's, else a new one. */
  sessionId?: string;
}

/** True when the text looks like a Codex CLI rollout (rather than a pi or Claude Code session). */
export function looksLikeCodex(text: string): boolean {
  return looksLikeCodexText(text);
}

export function importCodex(text: string, options: CodexImportOptions = {}): CodexImportResult {
  const parsed = parseLines(text);
  const records = parsed.flatMap((p) => (p.ok ? [p.record] : []));
  const legacy = records.some((r) => r.kind === "response_item" && r.raw === r.payload);
  const importer = new CodexImporter(legacy ? "legacy" : "envelope", sourceTexts(records));
  for (const item of parsed) {
    if (item.ok) importer.record(item.record);
    else {
      importer.report.lines++;
      importer.report.skipped.push({ line: item.line, reason: item.reason });
    }
  }
  importer.finishCalls();
  return finish(importer, options);
}

function finish(importer: CodexImporter, options: CodexImportOptions): CodexImportResult {
  const { entries, meta } = importer;
  const first = entries.find((e) => e.timestamp !== PENDING_TIME)?.timestamp;
  const sessionId = str(meta?.id) ?? idFromFileName(options.fileName);
  const header: SessionHeader = {
    type: "session",
    version: CURRENT_SESSION_VERSION,
    id: options.sessionId ?? sessionId ?? newSessionId(),
    timestamp: str(meta?.timestamp) ?? first ?? new Date().toISOString(),
    cwd: importer.cwd ?? "",
    importedFrom: importedFrom(meta, sessionId, options.fileName),
  };
  // Records before any timestamp (none in files Codex writes) take the first one there is.
  for (const entry of entries)
    if (entry.timestamp === PENDING_TIME) entry.timestamp = first ?? header.timestamp;
  const leafId = importer.tip();
  const derivedIds: string[] = [];
  if (entries.length > 0 && entries[entries.length - 1]?.id !== leafId) {
    // A rollback was the last thing Codex did: the leaf is where it went back to.
    const marker = stampDraft({ type: "custom", customType: LEAF_MARKER_TYPE }, leafId, {
      id: `${leafId ?? "root"}.leaf`,
      timestamp: entries[entries.length - 1]?.timestamp ?? header.timestamp,
      isTaken: () => false,
    });
    entries.push(marker);
    derivedIds.push(marker.id);
  }
  return { header, entries, leafId, derivedIds, report: importer.report };
}

function importedFrom(meta: Raw | undefined, sessionId: string | undefined, fileName: string | undefined) {
  const from: Raw = { format: "codex", sessionId };
  const fields: Array<[string, string]> = [
    ["cli_version", "version"],
    ["originator", "originator"],
    ["model_provider", "modelProvider"],
    ["forked_from_id", "forkedFromId"],
  ];
  for (const [field, name] of fields) if (str(meta?.[field])) from[name] = meta?.[field];
  if (meta?.source !== undefined) from.source = meta.source;
  if (fileName) from.fileName = baseName(fileName);
  return from;
}

const UUID_AT_END = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl?$/i;

function idFromFileName(fileName: string | undefined): string | undefined {
  return fileName ? UUID_AT_END.exec(baseName(fileName))?.[1] : undefined;
}

function baseName(path: string): string {
  return path.slice(Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\")) + 1);
}

/**
 * The texts the response items hold, so an event_msg that only repeats one (the UI's copy of a
 * message or of a reasoning summary) is recognised as a copy wherever it stands in the file.
 */
function sourceTexts(records: CodexRecord[]) {
  const userTexts = new Set<string>();
  const assistantTexts = new Set<string>();
  const reasoningTexts = new Set<string>();
  for (const r of records) {
    if (r.kind !== "response_item") continue;
    const p = r.payload;
    if (p.type === "message") {
      const text = contentText(p.content).trim();
      if (p.role === "assistant") assistantTexts.add(text);
      else if (p.role === "user" && !isHarnessText(text)) {
        userTexts.add(text);
        // Codex's event copy of a prompt holds only what was typed, without attached images' tags.
        for (const part of contentParts(p.content)) userTexts.add(part.trim());
      }
    } else if (p.type === "reasoning") {
      // One agent_reasoning event per summary part (or raw content part).
      for (const part of [...contentParts(p.summary), ...contentParts(p.content)])
        reasoningTexts.add(part.trim());
      const thinking = toThinkingBlock(p)?.thinking;
      if (thinking) reasoningTexts.add(thinking.trim());
    }
  }
  return { userTexts, assistantTexts, reasoningTexts };
}

function contentParts(content: unknown): string[] {
  if (!Array.isArray(content)) return [];
  return content.flatMap((item) => (typeof item?.text === "string" ? [item.text as string] : []));
}
