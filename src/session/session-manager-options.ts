import type { Durability, LockingMode } from "../file/session-file.js";

/** What sessiontree adds to pi's constructors; every field is optional. */
export interface SessionManagerOptions {
  /** Sessions root used when no session directory is given. @default env SESSIONTREE_ROOT or ~/.sessiontree */
  root?: string;
  /**
   * pi's agent directory, where `continueRecent`, `list`, `listAll` and `findSessions` also look
   * for sessions (only read; new sessions go under `root` or the session directory given); `null`
   * looks under `root` alone.
   * @default env PI_CODING_AGENT_DIR or ~/.pi/agent when `root` is not given; none when it is
   */
  piAgentDir?: string | null;
  /** @default "os" */
  durability?: Durability;
  /**
   * How long an append holds the file's lock (see `LockingMode`): `"normal"` for each append, so
   * any number of processes may write; `"exclusive"` from the first append until `close()`, which
   * makes an append about one `write` while writers in other processes wait.
   * @default "normal"
   */
  locking?: LockingMode;
  /**
   * Take the session's writer lease (for an agent that owns the session). When a live process
   * holds it: `"fail"` throws `LeaseHeldError`, `"read-only"` opens the session read-only.
   * @default undefined (no lease: several writers may append, serialized by the file lock)
   */
  lease?: "fail" | "read-only";
  /**
   * How a large session file is opened: `"resume"` reads only the lines the leaf's context needs
   * (through the sidecar index) and the rest when first asked for; `"whole"` reads every line at
   * open, once, for a caller that will want the whole tree anyway (a tree view, an export).
   * @default "resume"
   */
  open?: "resume" | "whole";
}
