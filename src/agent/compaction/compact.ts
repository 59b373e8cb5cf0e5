import { projectContext } from "../../core/context.js";
import type { CompactionEntry, EntryDraft, SessionEntry } from "../../core/entry.js";
import type { AgentMessage } from "../../core/messages.js";
import { type CompactionSettings, prepareCompaction } from "./prepare.js";
import { type SummarizeOptions, summarize } from "./summarize.js";

/**
 * The compaction entry for a path (pi's shape), the summary made by the provider; undefined when
 * nothing is older than the kept window. A split turn gets its prefix summarized apart, as in pi.
 */
export async function compactionDraft(
  path: readonly SessionEntry[],
  settings: CompactionSettings,
  options: SummarizeOptions,
): Promise<EntryDraft<CompactionEntry> | undefined> {
  const plan = prepareCompaction(path, settings);
  if (!plan) return undefined;
  let summary = await summarize(plan.toSummarize, "compaction", {
    ...options,
    previousSummary: plan.previousSummary,
  });
  if (plan.turnPrefix.length > 0) {
    const prefix = await summarize(plan.turnPrefix, "turn-prefix", {
      ...options,
      previousSummary: undefined,
    });
    summary += `\n\n---\n\n**Turn Context (split turn):**\n\n${prefix}`;
  }
  return {
    type: "compaction",
    summary,
    firstKeptEntryId: plan.firstKeptEntryId,
    tokensBefore: plan.tokensBefore,
  };
}

/** The messages of the branch being left: the part of `current` that is not on `target`'s path. */
export function leavingMessages(
  current: readonly SessionEntry[],
  target: readonly SessionEntry[],
): AgentMessage[] {
  const onTarget = new Set(target.map((e) => e.id));
  const diverge = current.findIndex((e) => !onTarget.has(e.id));
  if (diverge < 0) return [];
  return projectContext(current.slice(diverge).filter((e) => e.type !== "compaction")).messages;
}
