import type { ChannelVersions } from "@langchain/langgraph-checkpoint";
import type { EntryDraft, SessionEntry } from "../../core/entry.js";
import { type Origin, originFrom } from "../history/origin.js";
import { customDraft } from "../history/pi-messages.js";
import { keptText } from "../history/record-text.js";
import type { StoredValue } from "./stored-value.js";

export const FRAMEWORK = "langgraph";
/** A checkpoint: a `custom` entry, after the message entries it added. */
export const CHECKPOINT_CUSTOM_TYPE = "langgraph.checkpoint";
/** Pending writes of one task against a checkpoint: a `custom` entry under it. */
export const WRITES_CUSTOM_TYPE = "langgraph.writes";
/** A system message (pi's context holds it as a custom message). */
export const SYSTEM_CUSTOM_TYPE = "langgraph.system";
/** A message with no pi form (function, chat, remove…): outside pi's context. */
export const MESSAGE_CUSTOM_TYPE = "langgraph.message";

/**
 * How a checkpoint's message list is built from its parent's: the first `keep` messages of the
 * parent's list, then `add`: each an earlier message entry's id (a message of the parent's list
 * met again elsewhere) or a number, the n-th of the message entries written with this checkpoint.
 */
export interface MessageListDelta {
  keep: number;
  add: Array<string | number>;
}

export interface CheckpointRecord extends Origin {
  framework: typeof FRAMEWORK;
  kind: "checkpoint";
  ns: string;
  id: string;
  /** The parent checkpoint's id (same namespace), null for a first checkpoint. */
  parent: string | null;
  /** The checkpoint without its channel values (v, id, ts, versions, versions seen). */
  checkpoint: StoredValue;
  metadata: StoredValue;
  /** The versions this checkpoint wrote (LangGraph's `newVersions`): the channels stored here. */
  versions: ChannelVersions;
  /** Values of the channels stored here that are not message lists; null: empty at that version. */
  values: Record<string, StoredValue | null>;
  /** Message-list channels stored here, as deltas over the parent's lists. */
  messages: Record<string, MessageListDelta>;
  /** How many message entries were written with this checkpoint (its nearest ancestors). */
  written: number;
}

export interface WritesRecord extends Origin {
  framework: typeof FRAMEWORK;
  kind: "writes";
  ns: string;
  checkpoint: string;
  task: string;
  /** The task's path (LangGraph's sort key for a superstep's writes); "" when not given. */
  path: string;
  /** [channel, index, value]: the index is LangGraph's (negative for special channels). */
  writes: Array<[string, number, StoredValue]>;
}

export interface MessageRecord extends Origin {
  framework: typeof FRAMEWORK;
  kind: "message";
  /** The message's id, when it has one (what a later checkpoint's list is matched on). */
  id?: string;
  /**
   * The message as the saver's serde wrote it: what the graph reads back. Its text is kept less the
   * payloads pi's blocks hold (`cuts` beside it): read it with `storedMessage`.
   */
  message: StoredValue;
}

export type LangGraphRecord = CheckpointRecord | WritesRecord | MessageRecord;

/** The message a message record holds, its text whole again; undefined when it cannot be. */
export function storedMessage(entry: SessionEntry, record: MessageRecord): StoredValue | undefined {
  const stored = record.message;
  if (!("text" in stored)) return stored;
  const text = keptText(entry, stored, "text");
  return text === undefined ? undefined : { type: stored.type, text };
}

export function recordOf(entry: SessionEntry): LangGraphRecord | undefined {
  const origin = originFrom(entry, FRAMEWORK);
  if (!origin) return undefined;
  const kind = origin.kind;
  return kind === "checkpoint" || kind === "writes" || kind === "message"
    ? (origin as LangGraphRecord)
    : undefined;
}

export function checkpointDraft(record: Omit<CheckpointRecord, "framework" | "kind">): EntryDraft {
  return customDraft(CHECKPOINT_CUSTOM_TYPE, { framework: FRAMEWORK, kind: "checkpoint", ...record });
}

export function writesDraft(record: Omit<WritesRecord, "framework" | "kind">): EntryDraft {
  return customDraft(WRITES_CUSTOM_TYPE, { framework: FRAMEWORK, kind: "writes", ...record });
}
