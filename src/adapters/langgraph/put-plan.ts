import { type BaseMessage, isBaseMessage } from "@langchain/core/messages";
import type {
  ChannelVersions,
  Checkpoint,
  CheckpointMetadata,
  SerializerProtocol,
} from "@langchain/langgraph-checkpoint";
import type { EntryDraft, SessionEntry } from "../../core/entry.js";
import type { ModelLabel } from "../history/pi-messages.js";
import { messageSlots } from "./channel-values.js";
import { messageDraft, noteToolNames } from "./message-draft.js";
import { checkpointDraft, type MessageListDelta } from "./records.js";
import { dumpValue, type StoredValue, valueKey } from "./stored-value.js";
import type { CheckpointNode, MessageSlot, ThreadIndex } from "./thread-index.js";
import type { PlannedAppend } from "./thread-writer.js";

export interface PutContext {
  serde: SerializerProtocol;
  index: ThreadIndex;
  identity: WeakMap<object, string>;
  label: ModelLabel;
}

/** One put call. */
export interface PutRequest {
  ns: string;
  /** The parent checkpoint's id (the config's), none for a first checkpoint. */
  parentId: string | undefined;
  checkpoint: Checkpoint;
  metadata: CheckpointMetadata;
  newVersions: ChannelVersions;
}

/**
 * Plans a put: a message entry per new message, then the checkpoint's entry. Only the channels
 * LangGraph says changed (`newVersions`) are stored; a channel holding a list of messages is
 * stored as a delta over the parent's list, each message new to it (by instance, else by id and
 * content) becoming one message entry. Once stamped, each new message instance is known as its
 * entry's message (the next put and the next read use the instance, without serde).
 */
export async function planPut(ctx: PutContext, put: PutRequest): Promise<PlannedAppend> {
  const { ns, parentId, checkpoint, metadata, newVersions } = put;
  const { channel_values: current, ...rest } = checkpoint;
  const parent = parentId === undefined ? undefined : ctx.index.node(ns, parentId);
  const drafts: EntryDraft[] = [];
  const newMessages: BaseMessage[] = [];
  const values: Record<string, StoredValue | null> = {};
  const messages: Record<string, MessageListDelta> = {};
  for (const channel of Object.keys(newVersions)) {
    const value = (current as Record<string, unknown>)[channel];
    if (!Object.hasOwn(current, channel)) values[channel] = null;
    else if (isMessageList(value))
      messages[channel] = await messageDelta(ctx, { drafts, newMessages }, parent, channel, value);
    else values[channel] = await dumpValue(ctx.serde, value);
  }
  const record = {
    ns,
    id: checkpoint.id,
    parent: parentId ?? null,
    checkpoint: await dumpValue(ctx.serde, rest),
    metadata: await dumpValue(ctx.serde, metadata),
    versions: { ...newVersions },
    values,
    messages,
    written: newMessages.length,
  };
  drafts.push(checkpointDraft(record));
  return {
    parentId: checkpointParent(ctx.index, put),
    drafts,
    keepLeaf: false,
    applied: (entries) => {
      newMessages.forEach((message, i) => {
        const entryId = (entries[i] as SessionEntry).id;
        ctx.identity.set(message, entryId);
        const slot = ctx.index.message(entryId);
        if (slot) slot.value = message;
      });
    },
  };
}

/**
 * Where a new checkpoint's entries hang: under its parent's segment (after the parent's writes);
 * a subgraph's first checkpoint under the segment of the parent graph's checkpoint it ran from;
 * else a new root.
 */
function checkpointParent(index: ThreadIndex, { ns, parentId, metadata }: PutRequest): string | null {
  if (parentId !== undefined) return index.node(ns, parentId)?.tailId ?? null;
  if (ns === "") return null;
  const outer = ns.split("|").slice(0, -1).join("|");
  const outerId = metadata.parents?.[outer];
  return (outerId === undefined ? undefined : index.node(outer, outerId)?.tailId) ?? null;
}

function isMessageList(value: unknown): value is BaseMessage[] {
  return Array.isArray(value) && value.length > 0 && value.every((item) => isBaseMessage(item));
}

/** The message entries a put writes so far, and the messages they hold. */
interface NewMessages {
  drafts: EntryDraft[];
  newMessages: BaseMessage[];
}

async function messageDelta(
  ctx: PutContext,
  plan: NewMessages,
  parent: CheckpointNode | undefined,
  channel: string,
  list: BaseMessage[],
): Promise<MessageListDelta> {
  const before = parent ? messageSlots(ctx.index, parent, channel) : [];
  // The parent's list unchanged up front, instance by instance (a chat only appends): its length
  // is kept without a look at each message's content. The rest is matched one by one.
  let same = 0;
  while (
    same < list.length &&
    same < before.length &&
    ctx.identity.get(list[same] as BaseMessage) === before[same]?.entryId
  )
    same++;
  const tail = await tailRefs(ctx, plan, before, list, same);
  let keep = same;
  while (keep - same < tail.length && keep < before.length && tail[keep - same] === before[keep]?.entryId)
    keep++;
  return { keep, add: tail.slice(keep - same) };
}

/** What each message of `list` from `start` on is: an entry of the parent's list, or a new one. */
async function tailRefs(
  ctx: PutContext,
  plan: NewMessages,
  before: readonly MessageSlot[],
  list: BaseMessage[],
  start: number,
): Promise<Array<string | number>> {
  let known: Set<string> | undefined;
  let byId: Map<string, MessageSlot> | undefined;
  let toolNames: Map<string, string> | undefined;
  const refs: Array<string | number> = [];
  for (let position = start; position < list.length; position++) {
    const message = list[position] as BaseMessage;
    // The instance the graph read from us (or gave us) is that entry's message: no serde needed.
    const seen = ctx.identity.get(message);
    if (seen !== undefined && known === undefined) known = new Set(before.map((slot) => slot.entryId));
    if (seen !== undefined && known?.has(seen)) {
      refs.push(seen);
      continue;
    }
    const stored = await dumpValue(ctx.serde, message);
    byId ??= new Map(before.map((slot, i) => [slot.messageId ?? `#${i}`, slot]));
    const match = byId.get(message.id ?? `#${position}`);
    if (match && valueKey(match.stored) === valueKey(stored)) {
      refs.push(match.entryId);
      continue;
    }
    if (toolNames === undefined) {
      toolNames = new Map();
      for (const each of list) noteToolNames(each, toolNames);
    }
    refs.push(plan.newMessages.length);
    plan.newMessages.push(message);
    plan.drafts.push(messageDraft(message, stored, ctx.label, toolNames));
  }
  return refs;
}
