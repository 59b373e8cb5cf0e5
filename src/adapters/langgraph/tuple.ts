import {
  type Checkpoint,
  type CheckpointMetadata,
  type CheckpointPendingWrite,
  type CheckpointTuple,
  compareWritesSortKeys,
  maxChannelVersion,
  type SerializerProtocol,
  TASKS,
  writesSortKey,
} from "@langchain/langgraph-checkpoint";
import { channelValues } from "./channel-values.js";
import { configOf } from "./config.js";
import { loadValue } from "./stored-value.js";
import type { CheckpointNode, PendingWriteSlot, ThreadIndex } from "./thread-index.js";

export interface TupleContext {
  serde: SerializerProtocol;
  index: ThreadIndex;
  threadId: string;
  identity: WeakMap<object, string>;
  /** The first version of a channel (for the pending sends of an old checkpoint). */
  firstVersion(): number | string;
}

/** A checkpoint as LangGraph reads it: values rebuilt, pending writes in LangGraph's order. */
export async function readTuple(ctx: TupleContext, node: CheckpointNode): Promise<CheckpointTuple> {
  const { record } = node;
  const checkpoint = (await loadValue(ctx.serde, record.checkpoint)) as Checkpoint;
  checkpoint.channel_values = await channelValues(
    ctx.serde,
    ctx.index,
    node,
    checkpoint.channel_versions ?? {},
    ctx.identity,
  );
  const parent = ctx.index.parentOf(node);
  if (checkpoint.v < 4 && parent) await migratePendingSends(ctx, checkpoint, parent);
  const tuple: CheckpointTuple = {
    config: configOf(ctx.threadId, record.ns, record.id),
    checkpoint,
    metadata: (await loadValue(ctx.serde, record.metadata)) as CheckpointMetadata,
    pendingWrites: await pendingWrites(ctx, node),
  };
  if (record.parent !== null) tuple.parentConfig = configOf(ctx.threadId, record.ns, record.parent);
  return tuple;
}

async function pendingWrites(ctx: TupleContext, node: CheckpointNode): Promise<CheckpointPendingWrite[]> {
  return Promise.all(
    orderedWrites(node).map(
      async (slot): Promise<CheckpointPendingWrite> => [
        slot.task,
        slot.channel,
        await loadValue(ctx.serde, slot.value),
      ],
    ),
  );
}

/** A superstep's writes in the order LangGraph applies them: (task path, task id, index). */
function orderedWrites(node: CheckpointNode): PendingWriteSlot[] {
  const keyed = [...node.writes.values()].map((slot) => ({
    slot,
    key: writesSortKey(slot.path, slot.task, slot.index),
  }));
  keyed.sort((a, b) => compareWritesSortKeys(a.key, b.key));
  return keyed.map(({ slot }) => slot);
}

/**
 * Checkpoints before format 4 kept the sends of a step as writes to TASKS against their parent;
 * LangGraph's savers move them into the checkpoint's TASKS channel when reading it.
 */
async function migratePendingSends(
  ctx: TupleContext,
  checkpoint: Checkpoint,
  parent: CheckpointNode,
): Promise<void> {
  const sends = orderedWrites(parent).filter((slot) => slot.channel === TASKS);
  const values = await Promise.all(sends.map((slot) => loadValue(ctx.serde, slot.value)));
  checkpoint.channel_values ??= {};
  checkpoint.channel_values[TASKS] = values;
  checkpoint.channel_versions ??= {};
  const versions = Object.values(checkpoint.channel_versions);
  checkpoint.channel_versions[TASKS] =
    versions.length > 0 ? maxChannelVersion(...versions) : ctx.firstVersion();
}
