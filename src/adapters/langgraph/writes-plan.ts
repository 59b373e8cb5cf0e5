import { type PendingWrite, type SerializerProtocol, WRITES_IDX_MAP } from "@langchain/langgraph-checkpoint";
import { NotFoundError } from "../../core/errors.js";
import { writesDraft } from "./records.js";
import { dumpValue, type StoredValue } from "./stored-value.js";
import type { ThreadIndex } from "./thread-index.js";
import type { PlannedAppend } from "./thread-writer.js";

/** One putWrites call: a task's writes against a checkpoint. */
export interface TaskWrites {
  ns: string;
  checkpointId: string;
  writes: PendingWrite[];
  taskId: string;
  taskPath: string;
}

/**
 * The entry a task's writes make, under the checkpoint's segment (after its earlier writes); the
 * writes LangGraph's savers keep once (a task's write at an index) are left out when kept already.
 * Writes against an older checkpoint (a replay from the past) leave the leaf on the latest one.
 */
export async function planWrites(
  serde: SerializerProtocol,
  index: ThreadIndex,
  threadId: string,
  pending: TaskWrites,
): Promise<PlannedAppend | undefined> {
  const { ns, checkpointId, taskId } = pending;
  const node = index.node(ns, checkpointId);
  if (!node) {
    throw new NotFoundError("entry_not_found", `Checkpoint ${checkpointId} not found in thread ${threadId}`, {
      details: { threadId, ns, checkpointId },
    });
  }
  const fresh = pending.writes
    .map(([channel, value], i) => ({ channel, value, at: WRITES_IDX_MAP[channel] ?? i }))
    .filter(({ at }) => at < 0 || !node.writes.has(`${taskId},${at}`));
  if (fresh.length === 0) return undefined;
  const records = await Promise.all(
    fresh.map(
      async ({ channel, value, at }): Promise<[string, number, StoredValue]> => [
        channel,
        at,
        await dumpValue(serde, value),
      ],
    ),
  );
  const draft = writesDraft({
    ns,
    checkpoint: checkpointId,
    task: taskId,
    path: pending.taskPath,
    writes: records,
  });
  return { parentId: node.tailId, drafts: [draft], keepLeaf: ns === "" && index.latest(ns) !== node };
}
