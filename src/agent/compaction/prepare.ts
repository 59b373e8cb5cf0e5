import { projectContext } from "../../core/context.js";
import type { CompactionEntry, SessionEntry } from "../../core/entry.js";
import type { AgentMessage } from "../../core/messages.js";
import { isWellFormed } from "../../core/validate.js";
import { findCutPoint } from "./cut-point.js";
import { estimateContextTokens } from "./tokens.js";

export interface CompactionSettings {
  /** Tokens of the newest messages kept verbatim. @default 20000 */
  keepRecentTokens: number;
  /** Head room left for the reply; auto-compaction starts when context > window − reserve. @default 16384 */
  reserveTokens: number;
}

export const DEFAULT_COMPACTION_SETTINGS: Readonly<CompactionSettings> = Object.freeze({
  keepRecentTokens: 20000,
  reserveTokens: 16384,
});

export interface CompactionPlan {
  firstKeptEntryId: string;
  tokensBefore: number;
  /** Messages the summary replaces: from the previous kept boundary up to the cut (or the split turn). */
  toSummarize: AgentMessage[];
  /** When the cut splits a turn: the turn's start up to the cut, summarized as a prefix. */
  turnPrefix: AgentMessage[];
  previousSummary: string | undefined;
}

/**
 * Plans a compaction of a root→leaf path, or undefined when there is nothing to do. The range
 * summarized starts at the previous compaction's `firstKeptEntryId` (not after the previous
 * compaction entry), so what the last compaction kept is summarized now instead of lost (pi #2608).
 */
export function prepareCompaction(
  path: readonly SessionEntry[],
  settings: CompactionSettings,
): CompactionPlan | undefined {
  if (path.length === 0 || isCompaction(path[path.length - 1])) return undefined;
  let previousIndex = -1;
  for (let i = path.length - 1; i >= 0; i--) {
    if (isCompaction(path[i])) {
      previousIndex = i;
      break;
    }
  }
  let start = 0;
  let previousSummary: string | undefined;
  if (previousIndex >= 0) {
    const previous = path[previousIndex] as CompactionEntry;
    previousSummary = previous.summary;
    const keptIndex = path.findIndex((e, i) => i < previousIndex && e.id === previous.firstKeptEntryId);
    start = keptIndex >= 0 ? keptIndex : previousIndex + 1;
  }
  const cut = findCutPoint(path, start, path.length, settings.keepRecentTokens);
  const firstKept = path[cut.firstKeptIndex];
  if (!firstKept) return undefined;
  const historyEnd = cut.turnStartIndex >= 0 ? cut.turnStartIndex : cut.firstKeptIndex;
  const toSummarize = messagesIn(path, start, historyEnd);
  const turnPrefix = cut.turnStartIndex >= 0 ? messagesIn(path, cut.turnStartIndex, cut.firstKeptIndex) : [];
  if (toSummarize.length === 0 && turnPrefix.length === 0) return undefined;
  return {
    firstKeptEntryId: firstKept.id,
    tokensBefore: estimateContextTokens(projectContext(path).messages),
    toSummarize,
    turnPrefix,
    previousSummary,
  };
}

/** The context messages of path[from, to), compaction entries left out (their summary is carried apart). */
function messagesIn(path: readonly SessionEntry[], from: number, to: number): AgentMessage[] {
  const slice = path.slice(from, to).filter((e) => e.type !== "compaction");
  return projectContext(slice).messages;
}

/** A compaction the context follows: a malformed one (read from a file) holds its place only. */
function isCompaction(entry: SessionEntry | undefined): entry is CompactionEntry {
  return entry?.type === "compaction" && isWellFormed(entry);
}
