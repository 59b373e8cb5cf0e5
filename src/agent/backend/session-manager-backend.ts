import type { EntryDraft, SessionEntry } from "../../core/entry.js";
import { ValidationError } from "../../core/errors.js";
import type { AppendableMessage, ImageContent, TextContent } from "../../core/messages.js";
import type { SessionBackend } from "./backend.js";

/**
 * The methods of pi's SessionManager (and of sessiontree's drop-in) that AgentSession uses. Typed
 * structurally, so either class fits without an import.
 */
export interface SessionManagerLike {
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
  getLeafId(): string | null;
  getEntry(id: string): unknown;
  getChildren(parentId: string): unknown[];
}

/** A SessionBackend over a (pi-compatible) SessionManager. Its writes are synchronous. */
export class SessionManagerBackend implements SessionBackend {
  constructor(readonly manager: SessionManagerLike) {}

  leafId(): string | null {
    return this.manager.getLeafId();
  }

  async path(leafId?: string | null): Promise<SessionEntry[]> {
    if (leafId === null) return [];
    return this.manager.getBranch(leafId ?? undefined) as SessionEntry[];
  }

  getEntry(id: string): SessionEntry | undefined {
    return this.manager.getEntry(id) as SessionEntry | undefined;
  }

  hasChildren(id: string): boolean {
    return this.manager.getChildren(id).length > 0;
  }

  async appendUnder(parentId: string | null, draft: EntryDraft): Promise<string> {
    const userLeaf = this.manager.getLeafId();
    if (userLeaf !== parentId) this.setLeaf(parentId);
    try {
      return this.write(draft);
    } finally {
      if (userLeaf !== parentId) this.setLeaf(userLeaf);
    }
  }

  async moveLeaf(id: string | null): Promise<void> {
    this.setLeaf(id);
  }

  async branchWithSummary(fromId: string | null, summary: string, details?: unknown): Promise<string> {
    return this.manager.branchWithSummary(fromId, summary, details, false);
  }

  private setLeaf(id: string | null): void {
    if (id === null) this.manager.resetLeaf();
    else this.manager.branch(id);
  }

  private write(draft: EntryDraft): string {
    const m = this.manager;
    switch (draft.type) {
      case "message":
        return m.appendMessage(draft.message as AppendableMessage as never);
      case "model_change":
        return m.appendModelChange(draft.provider, draft.modelId);
      case "thinking_level_change":
        return m.appendThinkingLevelChange(draft.thinkingLevel);
      case "compaction":
        return m.appendCompaction(
          draft.summary,
          draft.firstKeptEntryId,
          draft.tokensBefore,
          draft.details,
          draft.fromHook,
        );
      case "custom":
        return m.appendCustomEntry(draft.customType, draft.data);
      case "custom_message":
        return m.appendCustomMessageEntry(draft.customType, draft.content, draft.display, draft.details);
      case "label":
        return m.appendLabelChange(draft.targetId, draft.label);
      case "session_info":
        return m.appendSessionInfo(draft.name ?? "");
      default:
        throw new ValidationError(
          "invalid_argument",
          `Cannot append a ${draft.type} entry through a SessionManager`,
        );
    }
  }
}
