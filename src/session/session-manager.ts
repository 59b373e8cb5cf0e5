import { existsSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import type { ProjectedContext } from "../core/context.js";
import { projectContext } from "../core/context.js";
import type { EntryDraft, SessionEntry, SessionHeader } from "../core/entry.js";
import { CorruptSessionError, isSessionTreeError, NotFoundError, SessionTreeError } from "../core/errors.js";
import type { SessionIssue } from "../core/issues.js";
import type { AppendableMessage, ImageContent, TextContent } from "../core/messages.js";
import { SessionTree, type SessionTreeNode } from "../core/tree.js";
import { WriterLease } from "../file/lease.js";
import { candidateDirsFor, sessionDirFor, sessionFileName, sessionsDir } from "../file/paths.js";
import { replaceKeepingBackup } from "../file/rewrite.js";
import {
  type Durability,
  type LockingMode,
  SessionFile,
  type SessionFileOptions,
} from "../file/session-file.js";
import { encodeSession } from "../format/jsonl/encode.js";
import { extractBranch } from "./extract-branch.js";
import { IndexedResume } from "./indexed-resume.js";
import { listSessions, type SessionListProgress } from "./list.js";
import { findMostRecentSession } from "./locate.js";
import type { NewSessionOptions } from "./new-header.js";
import { newHeader, rootOf } from "./new-header.js";
import type { SessionInfo } from "./session-info.js";

/** What sessiontree adds to pi's constructors; every field is optional. */
export interface SessionManagerOptions {
  /** Sessions root used when no session directory is given. @default env SESSIONTREE_ROOT or ~/.sessiontree */
  root?: string;
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
}

/**
 * A drop-in for pi's `SessionManager`: the same static constructors and methods, synchronous, so
 * code written for pi works by changing the import. Differences are all on the side of keeping
 * data: every append is in the file when the call returns; the file has exactly one header; a
 * rewind survives a restart; damaged lines are reported (`getIssues`), never skipped silently; a
 * file that is not a session is refused, never overwritten; appends take an inter-process lock.
 *
 * @example
 * const sm = SessionManager.create(process.cwd());
 * const id = sm.appendMessage({ role: "user", content: "hi", timestamp: Date.now() });
 * sm.branch(id);
 * sm.buildSessionContext().messages;
 */
export type { NewSessionOptions } from "./new-header.js";

export class SessionManager {
  private header!: SessionHeader;
  private sessionFile: string | undefined;
  private file: SessionFile | null = null;
  /**
   * An opened session whose leaf and context came from the sidecar index: the whole file is read
   * only when something needs more (any other read, or a write that is not a plain extension of
   * the path). See `loadedFile`.
   */
  private resumed: IndexedResume | null = null;
  private memoryTree = new SessionTree();
  private lease: WriterLease | null = null;
  private readOnly = false;

  private constructor(
    private cwd: string,
    private readonly sessionDir: string,
    sessionFile: string | undefined,
    private readonly persist: boolean,
    private readonly options: SessionManagerOptions = {},
  ) {
    if (sessionFile) this.setSessionFile(sessionFile);
    else this.newSession();
  }

  // ---- constructors (pi's signatures, plus an optional options object) ----

  /** A new session of `cwd`; nothing is written until the first append. */
  static create(cwd: string, sessionDir?: string, options: SessionManagerOptions = {}): SessionManager {
    return new SessionManager(
      cwd,
      sessionDir ?? sessionDirFor(rootOf(options), cwd),
      undefined,
      true,
      options,
    );
  }

  /** Opens a session file (a missing path starts a new session there, as in pi). */
  static open(
    path: string,
    sessionDir?: string,
    cwdOverride?: string,
    options: SessionManagerOptions = {},
  ): SessionManager {
    const dir = sessionDir ?? resolve(path, "..");
    const manager = new SessionManager(cwdOverride ?? process.cwd(), dir, path, true, options);
    if (!cwdOverride && manager.header.cwd) manager.cwd = manager.header.cwd;
    return manager;
  }

  /** The most recent session of `cwd`, or a new one. */
  static continueRecent(
    cwd: string,
    sessionDir?: string,
    options: SessionManagerOptions = {},
  ): SessionManager {
    const dirs = sessionDir ? [sessionDir] : candidateDirsFor(rootOf(options), cwd);
    const recent = findMostRecentSession(dirs, sessionDir ? undefined : cwd);
    const dir = sessionDir ?? sessionDirFor(rootOf(options), cwd);
    return new SessionManager(cwd, dir, recent ?? undefined, true, options);
  }

  /** A session kept in memory only, with the same interface. */
  static inMemory(cwd: string = process.cwd()): SessionManager {
    return new SessionManager(cwd, "", undefined, false);
  }

  /** A copy of another session's whole history as a new session of `targetCwd`. */
  static forkFrom(
    sourcePath: string,
    targetCwd: string,
    sessionDir?: string,
    options: SessionManagerOptions = {},
  ): SessionManager {
    const source = SessionFile.open(sourcePath);
    const dir = sessionDir ?? sessionDirFor(rootOf(options), targetCwd);
    const header = newHeader(targetCwd, { parentSession: sourcePath });
    const path = join(dir, sessionFileName(header.timestamp, header.id));
    SessionFile.create(path, header, source.tree.getStoredEntries(), options).close();
    return new SessionManager(targetCwd, dir, path, true, options);
  }

  /** Sessions of `cwd`, most recently active first. */
  static async list(
    cwd: string,
    sessionDir?: string,
    onProgress?: SessionListProgress,
    options: SessionManagerOptions = {},
  ): Promise<SessionInfo[]> {
    if (sessionDir) return listSessions([sessionDir], { onProgress });
    return listSessions(candidateDirsFor(rootOf(options), cwd), { onProgress, cwd });
  }

  /** Sessions of every working directory under the root, most recently active first. */
  static async listAll(
    onProgress?: SessionListProgress,
    options: SessionManagerOptions = {},
  ): Promise<SessionInfo[]> {
    return listSessions(null, { onProgress, sessionsRoot: sessionsDir(rootOf(options)) });
  }

  // ---- session switching ----

  /** Switches to another session file (used for resume). A missing file starts a new session there. */
  setSessionFile(sessionFile: string): void {
    const path = resolve(sessionFile);
    const size = existsSync(path) ? statSync(path).size : 0;
    if (size === 0) {
      // Nothing to lose: start a new session that will be written at this path.
      this.newSession();
      this.sessionFile = path;
      return;
    }
    this.releaseFile();
    this.sessionFile = path;
    this.resumed = IndexedResume.open(path, size, this.fileOptions());
    if (this.resumed) {
      this.header = this.resumed.header;
    } else {
      this.file = SessionFile.open(path, this.fileOptions());
      this.header = this.file.header;
    }
    this.takeLease(path);
  }

  /** Starts a new, empty session (written on its first append). Returns its file path. */
  newSession(options: NewSessionOptions = {}): string | undefined {
    this.releaseFile();
    this.memoryTree = new SessionTree();
    this.header = newHeader(this.cwd, options);
    this.sessionFile = this.persist
      ? join(this.sessionDir, sessionFileName(this.header.timestamp, this.header.id))
      : undefined;
    return this.sessionFile;
  }

  isPersisted(): boolean {
    return this.persist;
  }
  getCwd(): string {
    return this.cwd;
  }
  getSessionDir(): string {
    return this.sessionDir;
  }
  getSessionId(): string {
    return this.header.id;
  }
  getSessionFile(): string | undefined {
    return this.sessionFile;
  }
  getHeader(): SessionHeader | null {
    return this.header;
  }

  // ---- appends ----

  appendMessage(message: AppendableMessage): string {
    return this.append({ type: "message", message });
  }

  appendThinkingLevelChange(thinkingLevel: string): string {
    return this.append({ type: "thinking_level_change", thinkingLevel });
  }

  appendModelChange(provider: string, modelId: string): string {
    return this.append({ type: "model_change", provider, modelId });
  }

  appendCompaction<T = unknown>(
    summary: string,
    firstKeptEntryId: string,
    tokensBefore: number,
    details?: T,
    fromHook?: boolean,
  ): string {
    return this.append({ type: "compaction", summary, firstKeptEntryId, tokensBefore, details, fromHook });
  }

  appendCustomEntry(customType: string, data?: unknown): string {
    return this.append({ type: "custom", customType, data });
  }

  appendSessionInfo(name: string): string {
    return this.append({ type: "session_info", name: name.trim() });
  }

  appendCustomMessageEntry<T = unknown>(
    customType: string,
    content: string | (TextContent | ImageContent)[],
    display: boolean,
    details?: T,
  ): string {
    return this.append({ type: "custom_message", customType, content, display, details });
  }

  /** Sets a label on an entry (empty or undefined clears it). */
  appendLabelChange(targetId: string, label: string | undefined): string {
    this.tree.requireEntry(targetId);
    return this.append({ type: "label", targetId, label });
  }

  // ---- navigation ----

  /** Moves the leaf to an entry; the next append starts a branch there. Survives a restart. */
  branch(branchFromId: string): void {
    this.tree.requireEntry(branchFromId);
    if (this.tree.getLeafId() === branchFromId) return;
    this.tree.branch(branchFromId);
    this.persistLeaf();
  }

  /** Moves the leaf before the first entry: the next append makes a new root. */
  resetLeaf(): void {
    if (this.tree.getLeafId() === null) return;
    this.tree.resetLeaf();
    this.persistLeaf();
  }

  /** Like `branch`, and appends a summary of the branch left behind. */
  branchWithSummary(
    branchFromId: string | null,
    summary: string,
    details?: unknown,
    fromHook?: boolean,
  ): string {
    if (branchFromId !== null) this.tree.requireEntry(branchFromId);
    if (!this.persist) return this.tree.branchWithSummary(branchFromId, summary, details, fromHook).id;
    const [entry] = this.writable().write((tree) => [
      tree.branchWithSummary(branchFromId, summary, details, fromHook),
    ]);
    return (entry as SessionEntry).id;
  }

  /**
   * A new session holding only the path root → `leafId` (labels of that path re-created). On disk
   * it is written at once and this manager switches to it; in memory this session is replaced.
   */
  createBranchedSession(leafId: string): string | undefined {
    const path = this.getBranch(leafId);
    if (path.length === 0)
      throw new NotFoundError("entry_not_found", `Entry ${leafId} not found`, { details: { id: leafId } });
    const previousFile = this.sessionFile;
    const entries = extractBranch(this.tree, path);
    this.header = newHeader(this.cwd, { parentSession: this.persist ? previousFile : undefined });
    this.releaseFile();
    if (!this.persist) {
      this.memoryTree = new SessionTree();
      for (const entry of entries) this.memoryTree.load(entry);
      return undefined;
    }
    this.sessionFile = join(this.sessionDir, sessionFileName(this.header.timestamp, this.header.id));
    this.file = SessionFile.create(this.sessionFile, this.header, entries, this.fileOptions());
    return this.sessionFile;
  }

  // ---- reads ----

  getLeafId(): string | null {
    if (this.resumed) return this.resumed.leafId;
    return this.tree.getLeafId();
  }
  getLeafEntry(): SessionEntry | undefined {
    return this.resumed?.leafEntry() ?? this.tree.getLeafEntry();
  }
  getEntry(id: string): SessionEntry | undefined {
    return this.tree.getEntry(id);
  }
  getChildren(parentId: string): SessionEntry[] {
    return this.tree.getChildren(parentId);
  }
  getLabel(id: string): string | undefined {
    return this.tree.getLabel(id);
  }
  getBranch(fromId?: string): SessionEntry[] {
    return this.tree.getBranch(fromId);
  }
  getEntries(): SessionEntry[] {
    return this.tree.getEntries();
  }
  getTree(): SessionTreeNode[] {
    return this.tree.getTree();
  }
  getSessionName(): string | undefined {
    return this.tree.getSessionName();
  }

  /** The model's context at the leaf: pi's fields, plus extension state and warnings. */
  buildSessionContext(): ProjectedContext {
    if (this.resumed) return this.resumed.context();
    return projectContext(this.tree.getBranchSlots());
  }

  /** The context as it would be with the leaf at `entryId`. */
  buildSessionContextAt(entryId: string | null): ProjectedContext {
    return projectContext(entryId === null ? [] : this.tree.getBranchSlots(entryId));
  }

  /** Problems met reading the file (line numbers, offsets) and in the tree's structure. */
  getIssues(): SessionIssue[] {
    const file = this.loadedFile();
    return file ? file.getIssues() : this.memoryTree.getIssues();
  }

  /** Reads entries other processes appended since this manager last looked. */
  refresh(): void {
    this.file?.refresh();
  }

  /** Whether appends are refused because another live process holds the writer lease. */
  isReadOnly(): boolean {
    return this.readOnly;
  }

  /**
   * Releases the file handle and the writer lease (pi's manager holds neither). The session stays
   * readable; a later append reopens the file (and takes the lease again if one was asked for).
   */
  close(): void {
    this.resumed?.close();
    this.file?.close();
    this.lease?.release();
    this.lease = null;
  }

  private releaseFile(): void {
    this.resumed?.close();
    this.resumed = null;
    this.file?.close();
    this.file = null;
    this.lease?.release();
    this.lease = null;
    this.readOnly = false;
  }

  private takeLease(path: string): void {
    if (!this.options.lease) return;
    try {
      this.lease = WriterLease.acquire(path);
    } catch (error) {
      if (this.options.lease !== "read-only" || !isSessionTreeError(error, "lease_held")) throw error;
      this.readOnly = true;
    }
  }

  /** The tree index itself, for callers that need more than pi's API. */
  get tree(): SessionTree {
    const file = this.loadedFile();
    return file ? file.tree : this.memoryTree;
  }

  /**
   * The session file with its whole tree. After a resume through the index, this is where the file
   * is read, keeping the resumed leaf (lines others appended meanwhile join without moving it, as
   * a catch-up before a write does).
   */
  private loadedFile(): SessionFile | null {
    const resumed = this.resumed;
    if (resumed === null) return this.file;
    // Opened before anything is let go: if the read fails, the resumed session is still there.
    const file = SessionFile.open(this.sessionFile as string, this.fileOptions());
    resumed.close();
    this.resumed = null;
    this.file = file;
    this.header = file.header;
    file.tree.restoreLeaf(resumed.leafId);
    return file;
  }

  // ---- writing ----

  private append(draft: EntryDraft): string {
    if (!this.persist) return this.memoryTree.append(draft).id;
    const extended = this.canWrite() ? this.resumed?.tryAppend(draft) : null;
    if (extended) return extended.id;
    const [entry] = this.writable().write((tree) => [tree.append(draft)]);
    return (entry as SessionEntry).id;
  }

  /**
   * Whether an append may go straight to the resumed session: not refused (lease held elsewhere),
   * and no lease to take again first (`writable` does that, reading the whole file).
   */
  private canWrite(): boolean {
    return !this.readOnly && !(this.options.lease && !this.lease);
  }

  private fileOptions(): SessionFileOptions {
    return { durability: this.options.durability, locking: this.options.locking };
  }

  /** A leaf move is written as a hidden marker, so the next open lands on the same leaf. */
  private persistLeaf(): void {
    if (!this.persist || !this.loadedFile()) return;
    const leaf = this.tree.getLeafId();
    this.writable().write((tree) => {
      if (leaf === null) tree.resetLeaf();
      else tree.branch(leaf);
      return [tree.markLeaf()];
    });
  }

  /** The file to append to: created with its header on the first write; migrated files rewritten first. */
  private writable(): SessionFile {
    if (this.readOnly) {
      throw new SessionTreeError(
        "read_only",
        `Session ${this.header.id} is owned by another process (writer lease)`,
      );
    }
    const path = this.sessionFile as string;
    const file = this.loadedFile();
    if (!file) {
      this.file = SessionFile.create(path, this.header, [], this.fileOptions());
      this.takeLease(path);
      return this.file;
    }
    if (this.options.lease && !this.lease) {
      // Closed and written again: the lease was given up with the handle.
      this.takeLease(path);
      if (this.readOnly) return this.writable();
    }
    if (file.migratedFrom !== null) this.writeBackMigrated(file);
    return this.file as SessionFile;
  }

  /**
   * Appending v3 lines to an older file would make it unreadable to pi, so the migrated session is
   * first written as v3, atomically, with the original kept as `<file>.v<N>.bak`.
   */
  private writeBackMigrated(file: SessionFile): void {
    const leaf = file.tree.getLeafId();
    const content = encodeSession(file.header, file.tree.getStoredEntries());
    replaceKeepingBackup(file.path, content, `v${file.migratedFrom}.bak`);
    file.close();
    this.file = SessionFile.open(file.path, this.fileOptions());
    if (this.file.migratedFrom !== null)
      throw new CorruptSessionError("invalid_header", `Migration of ${file.path} did not stick`);
    this.file.tree.restoreLeaf(leaf);
    this.header = this.file.header;
  }
}
