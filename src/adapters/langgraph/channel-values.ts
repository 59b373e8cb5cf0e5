import type { SerializerProtocol } from "@langchain/langgraph-checkpoint";
import { NotFoundError } from "../../core/errors.js";
import { loadValue } from "./stored-value.js";
import type { CheckpointNode, MessageSlot, ThreadIndex } from "./thread-index.js";

/**
 * A checkpoint's channel values, rebuilt from what its ancestors stored: each checkpoint stores
 * only the channels it wrote (LangGraph's `newVersions`), so a channel's value is the one stored
 * by the nearest checkpoint on the parent chain that wrote it, at the version the checkpoint
 * names (another version there means the value was never stored: the channel is left out, as
 * LangGraph's other savers do). Message lists are rebuilt from their deltas.
 */
export async function channelValues(
  serde: SerializerProtocol,
  index: ThreadIndex,
  node: CheckpointNode,
  versions: Record<string, number | string>,
  identity: WeakMap<object, string>,
): Promise<Record<string, unknown>> {
  const values: Record<string, unknown> = {};
  for (const [channel, source] of sources(index, node, versions)) {
    const record = source.record;
    if (record.messages[channel] !== undefined) {
      const list: unknown[] = [];
      // One at a time: thousands of concurrent serde reads (each an await per field) cost more.
      for (const slot of messageSlots(index, source, channel))
        list.push(await readMessage(serde, slot, identity));
      values[channel] = list;
      continue;
    }
    const stored = record.values[channel];
    if (stored !== null && stored !== undefined) values[channel] = await loadValue(serde, stored);
  }
  return values;
}

/** For each channel, the nearest checkpoint (this one or an ancestor) that stored it at that version. */
function sources(
  index: ThreadIndex,
  node: CheckpointNode,
  versions: Record<string, number | string>,
): Map<string, CheckpointNode> {
  const found = new Map<string, CheckpointNode>();
  const wanted = new Set(Object.keys(versions));
  const seen = new Set<CheckpointNode>();
  for (let at: CheckpointNode | undefined = node; at && wanted.size > 0; at = index.parentOf(at)) {
    if (seen.has(at)) break;
    seen.add(at);
    for (const channel of [...wanted]) {
      if (!Object.hasOwn(at.record.versions, channel)) continue;
      wanted.delete(channel);
      if (at.record.versions[channel] === versions[channel]) found.set(channel, at);
    }
  }
  return found;
}

/**
 * The message entries of a message-list channel at `node` (which stored it): the deltas of the
 * checkpoints that stored the channel, back to one that started it afresh, applied oldest first.
 */
export function messageSlots(index: ThreadIndex, node: CheckpointNode, channel: string): MessageSlot[] {
  const chain: CheckpointNode[] = [];
  const seen = new Set<CheckpointNode>();
  let slots: MessageSlot[] = [];
  for (let at: CheckpointNode | undefined = node; at && !seen.has(at); at = index.parentOf(at)) {
    seen.add(at);
    const known = index.knownList(at, channel);
    if (known) {
      slots = [...known];
      break;
    }
    if (Object.hasOwn(at.record.values, channel)) break; // stored as a plain value: no messages to keep
    const delta = at.record.messages[channel];
    if (delta === undefined) continue;
    chain.push(at);
    if (delta.keep === 0) break;
  }
  for (const at of chain.reverse()) {
    const delta = at.record.messages[channel] as { keep: number; add: Array<string | number> };
    slots.length = Math.min(delta.keep, slots.length);
    for (const ref of delta.add) {
      const entryId = typeof ref === "number" ? at.written[ref] : ref;
      const slot = entryId === undefined ? undefined : index.message(entryId);
      if (!slot) {
        throw new NotFoundError("entry_not_found", `A message of checkpoint ${at.record.id} is missing`, {
          details: { checkpointId: at.record.id, channel, ref },
        });
      }
      slots.push(slot);
    }
  }
  index.keepList(node, channel, slots);
  return [...slots];
}

/** The message read back once and kept: the graph gets the same instance each time. */
async function readMessage(
  serde: SerializerProtocol,
  slot: MessageSlot,
  identity: WeakMap<object, string>,
): Promise<unknown> {
  if (slot.value === undefined) {
    slot.value = await loadValue(serde, slot.stored);
    if (slot.value !== null && typeof slot.value === "object") identity.set(slot.value, slot.entryId);
  }
  return slot.value;
}
