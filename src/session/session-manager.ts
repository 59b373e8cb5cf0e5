import { existsSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import type { ProjectedContext } from "../core/context.js";
import { projectContext } from "../core/context.js";
import type { EntryDraft, SessionEntry, SessionHeader } from "../core/entry.js";
import { NotFoundError } from "../core/errors.js";
import { fileLeaf } from "../core/file-leaf.js";
import type { SessionIssue } from "../core/issues.js";
import type { AppendableMessage, ImageContent, TextContent } from "../core/messages.js";
import type { SessionTree, SessionTreeNode } from "../core/tree.js";
import { sessionDirFor, sessionFileName } from "../file/paths.js";
import { SessionFile } from "../file/session-file.js";
import { tornHeaderOf } from "../file/torn-header.js";
import type { SessionBacking, WholeBacking } from "./backing/backing.js";
import { type BackingSource, fileSource, memorySource } from "./backing/backing-source.js";
import { extractBranch } from "./extract-branch.js";
import { listSessions, type SessionListProgress } from "./list.js";
import { findMostRecentSession } from "./locate.js";
import type { NewSessionOptions } from "./new-header.js";
import { newHeader, rootOf } from "./new-header.js";
import { findSessions, lookupDirsFor, lookupSessionsDirs } from "./pi-lookup.js";
import type { SessionInfo } from "./session-info.js";
import type { SessionManagerOptions } from "./session-manager-options.js";

export type { NewSessionOptions } from "./new-header.js";
export type { SessionManagerOptions } from "./session-manager-options.js";

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
export class SessionManager {
  /**
   * The session and how it is kept: in memory, in a file read whole, or in a file opened through
   * its sidecar index (replaced by a whole read when a call needs more, see `loaded`).
   */
  private backing!: SessionBacking;
  private readonly source: BackingSource;

  private constructor(
    private cwd: string,
    private readonly sessionDir: string,
    sessionFile: string | undefined,
    private readonly persist: boolean,
    options: SessionManagerOptions = {},
  ) {
    this.source = persist ? fileSource(sessionDir, options) : memorySource;
    if (sessionFile) this.setSessionFile(sessionFile);
    else this.newSession();
  }

  // ---- constructors (pi's signatures, plus an optional options object) ----

  /** A new session of `cwd`; nothing is written until the first append. */
  static create(cwd: string, sessionDir?: string, options: SessionManagerOptions = {}): SessionManager {
    return new SessionManager(cwd, sessionDir ?? folderOf(cwd, options), undefined, true, options);
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
    if (!cwdOverride && manager.backing.header.cwd) manager.cwd = manager.backing.header.cwd;
    return manager;
  }

  /**
   * The most recently modified session of `cwd`, or a new one. Without a session directory it is
   * looked for under the root and under pi's agent directory (`piAgentDir` in the options); a
   * session found there is continued in its file, while new sessions go to this manager's folder.
   */
  static continueRecent(
    cwd: string,
    sessionDir?: string,
    options: SessionManagerOptions = {},
  ): SessionManager {
    const dirs = sessionDir ? [sessionDir] : lookupDirsFor(cwd, options);
    const recent = findMostRecentSession(dirs, sessionDir ? undefined : cwd);
    return new SessionManager(cwd, sessionDir ?? folderOf(cwd, options), recent ?? undefined, true, options);
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
    const entries = SessionFile.open(sourcePath).tree.getStoredEntries();
    const dir = sessionDir ?? folderOf(targetCwd, options);
    const header = newHeader(targetCwd, { parentSession: sourcePath });
    const path = join(dir, sessionFileName(header.timestamp, header.id));
    SessionFile.create(path, header, entries, options).close();
    return new SessionManager(targetCwd, dir, path, true, options);
  }

  /**
   * Sessions of `cwd`, most recently active first: those in `sessionDir` when given, else those
   * under the root and pi's agent directory (`piAgentDir` in the options). Listing reads only.
   */
  static async list(
    cwd: string,
    sessionDir?: string,
    onProgress?: SessionListProgress,
    options: SessionManagerOptions = {},
  ): Promise<SessionInfo[]> {
    if (sessionDir) return listSessions([sessionDir], { onProgress });
    return listSessions(lookupDirsFor(cwd, options), { onProgress, cwd });
  }

  /** Sessions of every working directory under the root and pi's agent directory, most recent first. */
  static async listAll(
    onProgress?: SessionListProgress,
    options: SessionManagerOptions = {},
  ): Promise<SessionInfo[]> {
    return listSessions(null, { onProgress, sessionsRoots: lookupSessionsDirs(options) });
  }

  /**
   * Sessions whose id is `idOrPrefix` or starts with it, as pi resolves `--session <id>`: those
   * of `cwd` when any matches, else any of the root's and pi's agent directory's; most recent first.
   */
  static async findSessions(
    idOrPrefix: string,
    cwd: string = process.cwd(),
    options: SessionManagerOptions = {},
  ): Promise<SessionInfo[]> {
    return findSessions(idOrPrefix, cwd, options);
  }

  // ---- session switching ----

  /**
   * Switches to another session file (used for resume). A missing or empty file starts a new
   * session there, as in pi, and so does a file holding only a header cut short (its bytes are
   * moved aside by the first write, not overwritten as pi does).
   */
  setSessionFile(sessionFile: string): void {
    const path = resolve(sessionFile);
    const size = existsSync(path) ? statSync(path).size : 0;
    const torn = tornHeaderOf(path, size);
    if (size === 0 || torn !== null) {
      // Nothing to lose: start a new session that will be written at this path.
      this.startNew(newHeader(this.cwd, {}), path, torn ?? undefined);
      return;
    }
    this.replaceBacking(() => this.source.open(path, size));
  }

  /** Starts a new, empty session (written on its first append). Returns its file path. */
  newSession(options: NewSessionOptions = {}): string | undefined {
    this.startNew(newHeader(this.cwd, options));
    return this.backing.path;
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
    return this.backing.header.id;
  }
  getSessionFile(): string | undefined {
    return this.backing.path;
  }
  getHeader(): SessionHeader | null {
    return this.backing.header;
  }

  // ---- appends ----

  appendMessage(message: AppendableMessage): string {
    return this.appendDraft({ type: "message", message }).id;
  }

  appendThinkingLevelChange(thinkingLevel: string): string {
    return this.appendDraft({ type: "thinking_level_change", thinkingLevel }).id;
  }

  appendModelChange(provider: string, modelId: string): string {
    return this.appendDraft({ type: "model_change", provider, modelId }).id;
  }

  appendCompaction<T = unknown>(
    summary: string,
    firstKeptEntryId: string,
    tokensBefore: number,
    details?: T,
    fromHook?: boolean,
  ): string {
    const draft = { type: "compaction", summary, firstKeptEntryId, tokensBefore, details, fromHook } as const;
    return this.appendDraft(draft).id;
  }

  appendCustomEntry(customType: string, data?: unknown): string {
    return this.appendDraft({ type: "custom", customType, data }).id;
  }

  appendSessionInfo(name: string): string {
    return this.appendDraft({ type: "session_info", name: name.trim() }).id;
  }

  appendCustomMessageEntry<T = unknown>(
    customType: string,
    content: string | (TextContent | ImageContent)[],
    display: boolean,
    details?: T,
  ): string {
    return this.appendDraft({ type: "custom_message", customType, content, display, details }).id;
  }

  /** Sets a label on an entry (empty or undefined clears it). */
  appendLabelChange(targetId: string, label: string | undefined): string {
    return this.appendDraft({ type: "label", targetId, label }).id;
  }

  /**
   * Appends an entry of any type, given without id, parent and timestamp (which are filled in),
   * as the leaf's child, and returns it as stored. The `appendX` methods above all come here; an
   * agent with a ready-made draft calls it directly. A label's target must exist.
   */
  appendDraft(draft: EntryDraft): SessionEntry {
    if (draft.type === "label") this.tree.requireEntry(draft.targetId);
    return this.backing.append(draft) ?? this.loaded().append(draft);
  }

  /**
   * `appendDraft` under the leaf the session's file has as it is written (its last entry, or the
   * entry its leaf marker names), not this manager's: the tree is caught up with other writers
   * under the file's lock first. For a one-shot writer adding metadata to a session others may be
   * writing (`sessiontree label`, `name`): its entry goes after theirs, so where the session
   * resumes does not move back past an entry another process just appended. Not pi's API.
   */
  appendDraftAtFileLeaf(draft: EntryDraft): SessionEntry {
    if (draft.type === "label") this.tree.requireEntry(draft.targetId);
    const [entry] = this.loaded().write((tree) => {
      const leaf = fileLeaf(tree);
      if (leaf === null) tree.resetLeaf();
      else tree.branch(leaf);
      return [tree.append(draft)];
    });
    return entry as SessionEntry;
  }

  // ---- navigation ----

  /** Moves the leaf to an entry; the next append starts a branch there. Survives a restart. */
  branch(branchFromId: string): void {
    const whole = this.loaded();
    whole.tree.requireEntry(branchFromId);
    if (whole.tree.getLeafId() === branchFromId) return;
    whole.tree.branch(branchFromId);
    whole.persistLeaf();
  }

  /** Moves the leaf before the first entry: the next append makes a new root. */
  resetLeaf(): void {
    const whole = this.loaded();
    if (whole.tree.getLeafId() === null) return;
    whole.tree.resetLeaf();
    whole.persistLeaf();
  }

  /** Like `branch`, and appends a summary of the branch left behind. */
  branchWithSummary(
    branchFromId: string | null,
    summary: string,
    details?: unknown,
    fromHook?: boolean,
  ): string {
    const whole = this.loaded();
    if (branchFromId !== null) whole.tree.requireEntry(branchFromId);
    const [entry] = whole.write((tree) => [tree.branchWithSummary(branchFromId, summary, details, fromHook)]);
    return (entry as SessionEntry).id;
  }

  /**
   * A new session holding only the path root → `leafId` (labels of that path re-created), in this
   * manager's session folder, and this manager switches to it; in memory this session is replaced.
   *
   * Unlike pi, the fork's file is written at once, whatever the path holds, and its path is
   * returned: pi writes it only once the session holds an assistant message (until then the
   * returned path names no file), so a fork of a path without a reply is not lost if the process
   * ends before the next append. `list` therefore shows the fork at once.
   */
  createBranchedSession(leafId: string): string | undefined {
    const path = this.getBranch(leafId);
    if (path.length === 0)
      throw new NotFoundError("entry_not_found", `Entry ${leafId} not found`, { details: { id: leafId } });
    const previousFile = this.backing.path;
    const entries = extractBranch(this.tree, path);
    const header = newHeader(this.cwd, { parentSession: this.persist ? previousFile : undefined });
    this.replaceBacking(() => this.source.holding(header, entries, previousFile));
    return this.persist ? this.backing.path : undefined;
  }

  // ---- reads ----

  getLeafId(): string | null {
    return this.backing.leafId();
  }
  getLeafEntry(): SessionEntry | undefined {
    return this.backing.leafEntry();
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
    return this.backing.context();
  }

  /** The context as it would be with the leaf at `entryId`. */
  buildSessionContextAt(entryId: string | null): ProjectedContext {
    return projectContext(entryId === null ? [] : this.tree.getBranchSlots(entryId));
  }

  /** Problems met reading the file (line numbers, offsets) and in the tree's structure. */
  getIssues(): SessionIssue[] {
    return this.loaded().issues();
  }

  /** Reads entries other processes appended since this manager last looked. */
  refresh(): void {
    this.backing.refresh();
  }

  /** Whether appends are refused because another live process holds the writer lease. */
  isReadOnly(): boolean {
    return this.backing.readOnly();
  }

  /**
   * Releases the file handle and the writer lease (pi's manager holds neither). The session stays
   * readable; a later append reopens the file (and takes the lease again if one was asked for).
   */
  close(): void {
    this.backing.close();
  }

  /** The tree index itself, for callers that need more than pi's API. */
  get tree(): SessionTree {
    return this.loaded().tree;
  }

  /**
   * The session with its whole tree. After a resume through the index this is where the file is
   * read, keeping the resumed leaf; from then on the manager follows the whole read.
   */
  private loaded(): WholeBacking {
    const whole = this.backing.whole();
    this.backing = whole;
    return whole;
  }

  /** A new, empty session, at `path` when given (which may hold a header cut short: `replacing`). */
  private startNew(header: SessionHeader, path?: string, replacing?: Buffer): void {
    this.replaceBacking(() => this.source.fresh(header, path, replacing));
  }

  /** Lets go of the current session's file and lease, then opens the next one. */
  private replaceBacking(open: () => SessionBacking): void {
    // Undefined only while the constructor picks the first one.
    (this.backing as SessionBacking | undefined)?.close();
    this.backing = open();
  }
}

/** The session folder of `cwd` under the root the options name. */
function folderOf(cwd: string, options: SessionManagerOptions): string {
  return sessionDirFor(rootOf(options), cwd);
}
