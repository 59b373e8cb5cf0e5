/**
 * sessiontree: agent history as an append-only tree, in pi-compatible JSONL files.
 *
 * @example
 * import { SessionManager } from "sessiontree";
 * const session = SessionManager.create(process.cwd());
 * session.appendMessage({ role: "user", content: "hello", timestamp: Date.now() });
 * session.buildSessionContext().messages;
 *
 * Heavy parts live in subpaths: `sessiontree/sqlite`, `sessiontree/postgres`, `sessiontree/server`,
 * `sessiontree/client`, `sessiontree/agent`.
 */
export * from "./core/index.js";
export { type FsckReport, fsckFile } from "./file/fsck.js";
export { type LeaseHolder, WriterLease } from "./file/lease.js";
export * from "./file/paths.js";
export {
  type RepairAction,
  type RepairOptions,
  type RepairReport,
  repairFile,
} from "./file/repair.js";
export {
  type Durability,
  type LockingMode,
  SessionFile,
  type SessionFileOptions,
} from "./file/session-file.js";
export { type DecodedSession, decodeSession, SessionDecoder } from "./format/jsonl/decode.js";
export { encodeLine, encodeLines, encodeSession } from "./format/jsonl/encode.js";
export type { SessionListProgress } from "./session/list.js";
export type { SessionInfo } from "./session/session-info.js";
export {
  type NewSessionOptions,
  SessionManager,
  type SessionManagerOptions,
} from "./session/session-manager.js";
export * from "./store/index.js";
