import type { RunnableConfig } from "@langchain/core/runnables";
import { ValidationError } from "../../core/errors.js";
import { isSafeId } from "../../core/validate.js";

/** Where a checkpoint lives: a thread (one session), a namespace in it, and an id in that. */
export interface CheckpointAddress {
  threadId: string;
  ns: string;
  checkpointId?: string;
}

/** The address a config names; `thread_id` is required (LangGraph's own savers refuse without). */
export function addressOf(config: RunnableConfig, action: string): CheckpointAddress {
  const threadId = threadIdOf(config);
  if (threadId === undefined) {
    throw new ValidationError(
      "invalid_argument",
      `Cannot ${action}: the config has no configurable.thread_id (pass { configurable: { thread_id } })`,
    );
  }
  return { threadId, ns: namespaceOf(config), checkpointId: checkpointIdOf(config) };
}

/** The config's thread id, checked to be a session id a store takes; undefined when absent. */
export function threadIdOf(config: RunnableConfig): string | undefined {
  const raw = config.configurable?.thread_id;
  if (raw === undefined || raw === null) return undefined;
  return checkThreadId(String(raw));
}

export function checkThreadId(threadId: string): string {
  if (!isSafeId(threadId)) {
    throw new ValidationError(
      "invalid_argument",
      "A thread_id must be 1-128 characters of A-Z a-z 0-9 . _ : - (it is the session id)",
      { details: { threadId } },
    );
  }
  return threadId;
}

export function namespaceOf(config: RunnableConfig): string {
  const ns = config.configurable?.checkpoint_ns;
  return typeof ns === "string" ? ns : "";
}

/** `checkpoint_id`, or the older `thread_ts`, as LangGraph's getCheckpointId reads them. */
export function checkpointIdOf(config: RunnableConfig): string | undefined {
  const id = config.configurable?.checkpoint_id ?? config.configurable?.thread_ts;
  return typeof id === "string" && id !== "" ? id : undefined;
}

export function configOf(threadId: string, ns: string, checkpointId: string): RunnableConfig {
  return { configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: checkpointId } };
}
