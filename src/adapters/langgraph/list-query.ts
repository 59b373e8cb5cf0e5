import type { RunnableConfig } from "@langchain/core/runnables";
import type { CheckpointListOptions, CheckpointMetadata } from "@langchain/langgraph-checkpoint";
import { checkpointIdOf } from "./config.js";
import type { CheckpointNode, ThreadIndex } from "./thread-index.js";

/** The checkpoints `list` yields from one thread, newest first. */
export function listed(
  index: ThreadIndex,
  config: RunnableConfig,
  options: CheckpointListOptions,
): CheckpointNode[] {
  const ns = config.configurable?.checkpoint_ns as string | undefined;
  const only = checkpointIdOf(config);
  const before = options.before === undefined ? undefined : checkpointIdOf(options.before);
  return [...index.checkpoints()]
    .filter(({ record }) => ns === undefined || record.ns === ns)
    .filter(({ record }) => only === undefined || record.id === only)
    .filter(({ record }) => before === undefined || record.id < before)
    .sort((a, b) => (a.record.id < b.record.id ? 1 : a.record.id > b.record.id ? -1 : 0));
}

/** Whether metadata has every key of the filter with an equal value (JSON equality for objects). */
export function matches(
  metadata: CheckpointMetadata | undefined,
  filter: Record<string, unknown> | undefined,
): boolean {
  if (filter === undefined) return true;
  const fields = (metadata ?? {}) as Record<string, unknown>;
  return Object.entries(filter).every(([key, value]) =>
    value !== null && typeof value === "object"
      ? JSON.stringify(fields[key]) === JSON.stringify(value)
      : fields[key] === value,
  );
}
