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
 *
 * This is what a user of the library needs, named one by one so that the surface grows only on
 * purpose (test/public-api.test.ts pins the runtime names). Helpers the layers share with each other
 * (ids, canonical JSON, validation, index codes) are imported from their modules, not from here.
 */

// The tree and the context the model sees.
export {
  buildSessionContext,
  type ModelRef,
  type ProjectedContext,
  projectContext,
  type SessionContext,
} from "./core/context.js";
// Entries and messages.
export {
  type BranchSummaryEntry,
  type CompactionEntry,
  CURRENT_SESSION_VERSION,
  type CustomEntry,
  type CustomMessageEntry,
  ENTRY_TYPES,
  type EntryDraft,
  type EntryType,
  type EntryTypeInfo,
  isKnownEntryType,
  isLeafMarker,
  type LabelEntry,
  type ModelChangeEntry,
  type SessionEntry,
  type SessionEntryBase,
  type SessionHeader,
  type SessionInfoEntry,
  type SessionMessageEntry,
  type ThinkingLevelChangeEntry,
} from "./core/entry.js";
// Errors (stable codes) and the problems a read reports.
export {
  ConflictError,
  CorruptSessionError,
  type ErrorCode,
  isSessionTreeError,
  LeaseHeldError,
  NotFoundError,
  SessionTreeError,
  ValidationError,
} from "./core/errors.js";
export type { IssueCode, IssueSeverity, SessionIssue } from "./core/issues.js";
export type {
  AgentMessage,
  AppendableMessage,
  AssistantMessage,
  BranchSummaryMessage,
  CompactionSummaryMessage,
  ContentBlock,
  CustomMessage,
  ImageContent,
  OtherMessage,
  StopReason,
  TextContent,
  ThinkingContent,
  ToolCallContent,
  ToolResultMessage,
  UserMessage,
} from "./core/messages.js";
export { SessionTree, type SessionTreeNode } from "./core/tree.js";
// One session file: read and write it, check, repair and migrate it, own it.
export { type FsckReport, fsckFile } from "./file/fsck.js";
export { type LeaseHolder, WriterLease } from "./file/lease.js";
export { type MigrateOptions, type MigrateReport, migrateFile } from "./file/migrate.js";
export { defaultPiAgentDir, defaultRoot, type Layout, sessionDirFor } from "./file/paths.js";
export { type RepairAction, type RepairOptions, type RepairReport, repairFile } from "./file/repair.js";
export {
  type Durability,
  type LockingMode,
  SessionFile,
  type SessionFileOptions,
} from "./file/session-file.js";
// pi's JSONL format.
export {
  type DecodedSession,
  type DecodeOptions,
  decodeSession,
  type PositionedEntry,
  SessionDecoder,
} from "./format/jsonl/decode.js";
export { encodeLine, encodeSession } from "./format/jsonl/encode.js";
// Sessions: the pi-compatible manager over session files.
export type { SessionListProgress } from "./session/list.js";
// pi's module-level session functions, with pi's signatures (pi's `buildSessionContext` and
// `CURRENT_SESSION_VERSION` are the ones exported above).
export {
  type FileEntry,
  findMostRecentSession,
  getAgentDir,
  getDefaultSessionDir,
  getLatestCompactionEntry,
  loadEntriesFromFile,
  migrateSessionEntries,
  type ParseIssueListener,
  parseSessionEntries,
  type ReadonlySessionManager,
} from "./session/pi-functions.js";
export type { SessionInfo } from "./session/session-info.js";
export {
  type NewSessionOptions,
  SessionManager,
  type SessionManagerOptions,
} from "./session/session-manager.js";

// Stores: the async multi-tenant contract and its dependency-free backends.
export { JsonlStore } from "./store/jsonl/jsonl-store.js";
export type { JsonlStoreOptions } from "./store/jsonl/jsonl-store-config.js";
export { MemoryStore } from "./store/memory/memory-store.js";
export type * from "./store/store.js";
