import { parseObject, type Raw, str } from "./claude-code-content.js";

/**
 * The session-level facts of a Claude Code file that no single line says alone: its name and, for
 * a subagent's file, the agent it belongs to. The record-level half is `claude-code.ts`.
 */

/**
 * Claude Code names a session several ways; the strongest wins: a `/rename` (`custom-title`),
 * then its generated title (`ai-title`, rewritten as the talk goes on: the latest wins), then a
 * subagent's name (`agent-name`), then a `summary` — preferably one that summarises a line of this
 * file (older versions copy the summaries of the sessions a resumed one continued).
 */
export class TitlePicker {
  private custom: string | undefined;
  private ai: string | undefined;
  private agent: string | undefined;
  private readonly summaries: Array<{ text: string; leafUuid: string | undefined }> = [];

  /** Takes what a record without a uuid says about the name, if anything. */
  see(record: Raw): void {
    const type = record.type;
    if (type === "custom-title") this.custom = str(record.customTitle) ?? this.custom;
    else if (type === "ai-title") this.ai = str(record.aiTitle) ?? str(record.title) ?? this.ai;
    else if (type === "agent-name") this.agent = str(record.agentName) ?? this.agent;
    else if (type === "summary" && str(record.summary))
      this.summaries.push({ text: str(record.summary) as string, leafUuid: str(record.leafUuid) });
  }

  /** The name, given the uuids the file holds. */
  pick(hasUuid: (uuid: string) => boolean): string | undefined {
    if (this.custom ?? this.ai ?? this.agent) return this.custom ?? this.ai ?? this.agent;
    const own = this.summaries.filter((s) => s.leafUuid !== undefined && hasUuid(s.leafUuid));
    return (own[own.length - 1] ?? this.summaries[0])?.text;
  }
}

/** `agent-<id>.jsonl` (any folder, either separator) → `<id>`. */
export function agentIdFromFileName(fileName: string | undefined): string | undefined {
  const match = /^agent-(.+)\.jsonl$/.exec(baseName(fileName));
  return match?.[1];
}

/** `<uuid>.jsonl` (any folder, either separator) → `<uuid>`: how Claude Code names a session's file. */
function sessionIdFromFileName(fileName: string | undefined): string | undefined {
  const match = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/i.exec(
    baseName(fileName),
  );
  return match?.[1];
}

function baseName(fileName: string | undefined): string {
  if (!fileName) return "";
  return fileName.slice(Math.max(fileName.lastIndexOf("/"), fileName.lastIndexOf("\\")) + 1);
}

/**
 * The session id of an imported main file: the one in its name, which is what `claude --resume`
 * takes, else the one its records wrote last. Records are no guide on their own: a resumed session
 * is a new file that begins with copies of the old session's lines, old id included, and some
 * versions went on writing the old id on every line (anthropics/claude-code#8614); taking it would
 * make the import of the new file an update of the old session.
 */
export function mainSessionId(
  fileName: string | undefined,
  lastRecordId: string | undefined,
): string | undefined {
  return sessionIdFromFileName(fileName) ?? lastRecordId;
}

/**
 * The session id of an imported subagent file: its session's id plus the agent's, so it never
 * takes (or appends to) the main session's id. The agent is named by the records' `agentId`, else
 * by the file name (`agent-<id>.jsonl`, older versions wrote no `agentId`), else by the first
 * record's uuid.
 */
export function subagentSessionId(
  sessionId: string | undefined,
  agentId: string | undefined,
  fileName: string | undefined,
  firstUuid: string | undefined,
): { id: string | undefined; agentId: string | undefined } {
  const agent =
    agentId ?? agentIdFromFileName(fileName) ?? (firstUuid ? `sidechain-${firstUuid}` : undefined);
  if (!sessionId) return { id: agent ? `agent-${agent}` : undefined, agentId: agent };
  return { id: agent ? `${sessionId}.agent-${agent}` : sessionId, agentId: agent };
}

/**
 * Newer Claude Code versions keep each subagent's conversation in a file of its own, every line
 * a sidechain: there the sidechain is the conversation, so it imports as messages.
 */
export function isSubagentFile(lines: readonly string[]): boolean {
  let sidechains = 0;
  for (const line of lines) {
    const record = parseObject(line);
    if (!record || typeof record.uuid !== "string") continue;
    if (record.isSidechain !== true) return false;
    sidechains++;
  }
  return sidechains > 0;
}

/** Record types only Claude Code writes without a uuid (metadata beside the conversation). */
const CLAUDE_SIDE_TYPES = new Set([
  "summary",
  "ai-title",
  "custom-title",
  "agent-name",
  "permission-mode",
  "file-history-snapshot",
  "queue-operation",
  "last-prompt",
]);

/** One parsed line that only a Claude Code session holds: a uuid chain, or one of its side records. */
export function isClaudeRecord(record: Raw): boolean {
  if (record.type === "session" || "payload" in record) return false;
  if ("parentUuid" in record || "leafUuid" in record) return true;
  if (typeof record.uuid === "string" && typeof record.type === "string" && "sessionId" in record)
    return true;
  return typeof record.type === "string" && CLAUDE_SIDE_TYPES.has(record.type);
}

/** True when the text looks like a Claude Code session (rather than a pi session). */
export function looksLikeClaudeCode(text: string): boolean {
  for (const line of text.split("\n", 50)) {
    const record = parseObject(line);
    if (!record) continue;
    if (record.type === "session") return false;
    if (isClaudeRecord(record)) return true;
  }
  return false;
}
