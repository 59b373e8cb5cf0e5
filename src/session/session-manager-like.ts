import type { ProjectedContext } from "../core/context.js";
import type { EntryDraft, SessionEntry } from "../core/entry.js";
import type { ImageContent, TextContent } from "../core/messages.js";

/**
 * The methods of pi's SessionManager (and of sessiontree's drop-in) that the layers above use
 * (the agent's backend, the framework adapters). Typed structurally, so either class fits without
 * an import of pi.
 */
export interface SessionManagerLike {
  getSessionId(): string;
  appendMessage(message: never): string;
  appendModelChange(provider: string, modelId: string): string;
  appendThinkingLevelChange(thinkingLevel: string): string;
  appendCompaction(
    summary: string,
    firstKeptEntryId: string,
    tokensBefore: number,
    details?: unknown,
    fromHook?: boolean,
  ): string;
  appendCustomEntry(customType: string, data?: unknown): string;
  appendCustomMessageEntry(
    customType: string,
    content: string | (TextContent | ImageContent)[],
    display: boolean,
    details?: unknown,
  ): string;
  appendLabelChange(targetId: string, label: string | undefined): string;
  appendSessionInfo(name: string): string;
  branch(branchFromId: string): void;
  resetLeaf(): void;
  branchWithSummary(
    branchFromId: string | null,
    summary: string,
    details?: unknown,
    fromHook?: boolean,
  ): string;
  getBranch(fromId?: string): unknown[];
  getEntries(): unknown[];
  getLeafId(): string | null;
  getEntry(id: string): unknown;
  getChildren(parentId: string): unknown[];
}

/** What sessiontree's SessionManager adds: drafts taken as they are, contexts with extension state. */
export interface SessionTreeManager extends SessionManagerLike {
  appendDraft(draft: EntryDraft): SessionEntry;
  buildSessionContext(): ProjectedContext;
  buildSessionContextAt(entryId: string | null): ProjectedContext;
}

export function isSessionTreeManager(manager: SessionManagerLike): manager is SessionTreeManager {
  const candidate = manager as Partial<SessionTreeManager>;
  return typeof candidate.appendDraft === "function" && typeof candidate.buildSessionContextAt === "function";
}
