import { projectContext } from "../../core/context.js";
import type { CompactionEntry, EntryDraft, SessionEntry } from "../../core/entry.js";
import type { AgentMessage } from "../../core/messages.js";
import { type CompactionSettings, prepareCompaction } from "./prepare.js";
import { type SummarizeOptions, serializeConversation, summarize } from "./summarize.js";

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
  const history = serializeConversation(plan.toSummarize);
  const prefix = serializeConversation(plan.turnPrefix);
  if (!history && !prefix) return undefined;
  // A cut inside the first turn has no history before it: nothing to ask about (pi's words), or the
  // previous summary unchanged when only a split turn is new.
  let summary = history
    ? await summarize(plan.toSummarize, "compaction", { ...options, previousSummary: plan.previousSummary })
    : (plan.previousSummary ?? "No prior history.");
  if (prefix) {
    const prefixSummary = await summarize(plan.turnPrefix, "turn-prefix", {
      ...options,
      previousSummary: undefined,
    });
    summary += `\n\n---\n\n**Turn Context (split turn):**\n\n${prefixSummary}`;
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
