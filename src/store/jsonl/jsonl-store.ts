import { mkdirSync, statSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import type { SessionEntry, SessionHeader } from "../../core/entry.js";
import { isSessionTreeError } from "../../core/errors.js";
import { nowIso } from "../../core/ids.js";
import { isSafeId } from "../../core/validate.js";
import { SessionFile } from "../../file/session-file.js";
import { encodeLines } from "../../format/jsonl/encode.js";
import { planAppend } from "../append-plan.js";
import { normalizeEntryPage, normalizeListOptions, pageFromSummaries } from "../cursor.js";
import { exportSessionJsonl, leafMarkerFor, parseImport } from "../jsonl-transfer.js";
import { checkRevision, entryNotFound, requireOwner, sessionExists, sessionNotFound } from "../rules.js";
import type {
  AppendOptions,
  AppendResult,
  CreateSessionInput,
  EntryPage,
  EntryPageOptions,
  ImportOptions,
  ListOptions,
  Page,
  ReadOptions,
  SessionStore,
  SessionSummary,
  StoreCapabilities,
  StoredSession,
  WriteOptions,
  WriteResult,
} from "../store.js";
import { applyEntries, buildHeader, type DerivedFields, initialSummary } from "../summary.js";
import { detachedEntry, idsToLookUp, validateBatch } from "../validate-batch.js";
import type { JsonlStoreOptions } from "./jsonl-store-config.js";
import {
  allOwnerDirs,
  metaPath,
  ownerDir,
  readMeta,
  revisionOf,
  type SessionMeta,
  sessionIdsIn,
  sessionPath,
  toMeta,
  writeMeta,
} from "./jsonl-store-layout.js";
import { markLeaf, syncLeafToFile } from "./jsonl-store-leaf.js";

/** A session as one read or write sees it. */
interface Snapshot {
  path: string;
  file: SessionFile;
  meta: SessionMeta | null;
  summary: SessionSummary;
}

/** What a write decided: lines to add, the summary change (null: none), and what to return. */
interface Mutation<T> {
  lines: SessionEntry[];
  change: Partial<SessionSummary> | null;
  result: (summary: SessionSummary) => T;
}

/**
 * `SessionStore` over pi-format JSONL files (through the session file layer: one flock per write,
 * other writers' lines read first). Revision and soft delete live in a sidecar written under the
 * same lock (see jsonl-store-layout.ts); the leaf is kept with leaf markers, so pi opens the files
 * at the same leaf. `multiProcess` is false: appends and revisions are safe across processes, but
 * create, purge and retention are not coordinated between them.
 *
 * @example
 * const store = new JsonlStore({ root: "/var/lib/sessiontree" });
 * await store.init();
 */
export class JsonlStore implements SessionStore {
  readonly kind = "jsonl";
  readonly capabilities: StoreCapabilities = Object.freeze({ multiProcess: false, persistent: true });
  private readonly options: Readonly<Required<JsonlStoreOptions>>;
  /** Open files by path, least recently used first. */
  private readonly files = new Map<string, SessionFile>();

  constructor(options: JsonlStoreOptions) {
    this.options = Object.freeze({ durability: "os", openFiles: 64, ...options });
  }

  async init(): Promise<void> {
    mkdirSync(join(this.options.root, "owners"), { recursive: true });
  }

  async close(): Promise<void> {
    for (const file of this.files.values()) file.close();
    this.files.clear();
  }

  async createSession(owner: string, init?: CreateSessionInput): Promise<SessionSummary> {
    return this.insert(requireOwner(owner), buildHeader(init), [], null);
  }

  async loadSession(owner: string, sessionId: string, options?: ReadOptions): Promise<StoredSession> {
    const snap = this.read(owner, sessionId, options?.includeDeleted);
    return {
      summary: snap.summary,
      header: structuredClone(snap.file.header),
      entries: structuredClone(snap.file.tree.getEntries()),
    };
  }

  async getSummary(owner: string, sessionId: string, options?: ReadOptions): Promise<SessionSummary> {
    return this.read(owner, sessionId, options?.includeDeleted).summary;
  }

  async listSessions(owner: string, options?: ListOptions): Promise<Page<SessionSummary>> {
    const query = normalizeListOptions(options);
    const dir = ownerDir(this.options.root, requireOwner(owner));
    const summaries = sessionIdsIn(dir).map((id) => this.listedSummary(owner, join(dir, `${id}.jsonl`), id));
    return pageFromSummaries(summaries, query);
  }

  async appendEntries(
    owner: string,
    sessionId: string,
    entries: SessionEntry[],
    options: AppendOptions = {},
  ): Promise<AppendResult> {
    const batch = validateBatch(entries);
    return this.mutate(owner, sessionId, false, ({ file, summary }): Mutation<AppendResult> => {
      const tree = file.tree;
      const existing = new Map<string, SessionEntry>();
      for (const id of idsToLookUp(batch)) {
        const stored = tree.getEntry(id);
        if (stored) existing.set(id, stored);
      }
      // A hidden leaf marker's id is taken: an entry reusing it is a different entry (but no parent).
      const reused = batch.find((entry) => !existing.has(entry.id) && tree.hasId(entry.id));
      if (reused)
        existing.set(reused.id, { ...reused, type: "sessiontree.hidden" } as unknown as SessionEntry);
      const plan = planAppend(batch, existing, summary.leafId, options.moveLeaf ?? true);
      const report = { appended: plan.toInsert.map((e) => e.id), skipped: plan.skipped };
      if (!plan.changed) return { lines: [], change: null, result: (s) => ({ ...result(s), ...report }) };
      checkRevision(options.expectedRevision, summary.revision);
      const written = plan.toInsert.map(detachedEntry);
      for (const entry of written) tree.load(entry);
      const lines = [...written, ...markLeaf(tree, plan.leafId)];
      const change = { ...applyEntries(summary, plan.toInsert), leafId: plan.leafId };
      return { lines, change, result: (s) => ({ ...result(s), ...report }) };
    });
  }

  async setLeaf(
    owner: string,
    sessionId: string,
    leafId: string | null,
    options: WriteOptions = {},
  ): Promise<WriteResult> {
    return this.mutate(owner, sessionId, false, ({ file, summary }): Mutation<WriteResult> => {
      if (leafId !== null && !file.tree.getEntry(leafId)) throw entryNotFound(sessionId, leafId);
      if (leafId === summary.leafId) return { lines: [], change: null, result };
      checkRevision(options.expectedRevision, summary.revision);
      return { lines: markLeaf(file.tree, leafId), change: { leafId }, result };
    });
  }

  async readBranch(owner: string, sessionId: string, leafId?: string | null): Promise<SessionEntry[]> {
    const { file, summary } = this.read(owner, sessionId);
    const start = leafId === undefined ? summary.leafId : leafId;
    if (start === null) return [];
    if (!file.tree.getEntry(start)) throw entryNotFound(sessionId, start);
    // Copies: the cached tree's objects must not be changed by a caller.
    return structuredClone(file.tree.getBranch(start));
  }

  async readEntries(owner: string, sessionId: string, options?: EntryPageOptions): Promise<EntryPage> {
    const { after, limit } = normalizeEntryPage(options);
    const all = this.read(owner, sessionId).file.tree.getEntries();
    const entries = structuredClone(all.slice(after, after + limit));
    const end = after + entries.length;
    return { entries, nextAfter: end < all.length ? end : null };
  }

  async deleteSession(owner: string, sessionId: string, options: WriteOptions = {}): Promise<WriteResult> {
    return this.mutate(owner, sessionId, true, ({ summary }): Mutation<WriteResult> => {
      if (summary.deletedAt !== null) return { lines: [], change: null, result };
      checkRevision(options.expectedRevision, summary.revision);
      return { lines: [], change: { deletedAt: nowIso() }, result };
    });
  }

  async restoreSession(owner: string, sessionId: string, options: WriteOptions = {}): Promise<WriteResult> {
    return this.mutate(owner, sessionId, true, ({ summary }): Mutation<WriteResult> => {
      if (summary.deletedAt === null) return { lines: [], change: null, result };
      checkRevision(options.expectedRevision, summary.revision);
      return { lines: [], change: { deletedAt: null }, result };
    });
  }

  async purgeSession(owner: string, sessionId: string): Promise<void> {
    const { path } = this.read(owner, sessionId, true);
    this.remove(path);
  }

  async purgeDeletedBefore(cutoff: Date): Promise<Array<{ owner: string; sessionId: string }>> {
    const limit = cutoff.toISOString();
    const purged: Array<{ owner: string; sessionId: string }> = [];
    for (const dir of allOwnerDirs(this.options.root)) {
      for (const sessionId of sessionIdsIn(dir)) {
        const path = join(dir, `${sessionId}.jsonl`);
        const meta = readMeta(path);
        if (meta?.deletedAt && meta.deletedAt < limit) {
          this.remove(path);
          purged.push({ owner: meta.owner, sessionId });
        }
      }
    }
    return purged;
  }

  async exportJsonl(owner: string, sessionId: string): Promise<string> {
    const { file, summary } = this.read(owner, sessionId);
    return exportSessionJsonl(file.header, file.tree.getEntries(), summary.leafId);
  }

  async importJsonl(owner: string, jsonl: string, options?: ImportOptions): Promise<SessionSummary> {
    const imported = parseImport(jsonl, options);
    return this.insert(requireOwner(owner), imported.header, imported.entries, imported.leafId);
  }

  private insert(
    owner: string,
    header: SessionHeader,
    entries: SessionEntry[],
    leafId: string | null,
  ): SessionSummary {
    const path = sessionPath(this.options.root, owner, header.id);
    const marker = leafMarkerFor(entries, leafId);
    const lines = marker ? [...entries, marker] : entries;
    let file: SessionFile;
    try {
      file = SessionFile.create(path, header, lines, { durability: this.options.durability });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      throw sessionExists(header.id, this.read(owner, header.id, true).summary.revision);
    }
    const base = initialSummary(owner, header, nowIso());
    const summary: SessionSummary = { ...base, ...applyEntries(base, entries), leafId };
    writeMeta(path, toMeta(summary, header, statSync(path).size, lines.length));
    this.remember(path, file);
    return summary;
  }

  /** The session as it is now (other processes' lines included), or `session_not_found`. */
  private read(owner: string, sessionId: string, includeDeleted = false): Snapshot {
    const path = this.pathOf(owner, sessionId);
    const file = this.open(path, sessionId);
    file.refresh();
    return this.snapshot(owner, path, file, sessionId, includeDeleted);
  }

  /**
   * Runs one write under the session file's lock: `decide` sees the session after catching up with
   * other writers; the sidecar (new revision) is written before the lines, so a crash between the
   * two never makes a revision go back (see `revisionOf`).
   */
  private mutate<T>(
    owner: string,
    sessionId: string,
    includeDeleted: boolean,
    decide: (snap: Snapshot) => Mutation<T>,
  ): T {
    const path = this.pathOf(owner, sessionId);
    const file = this.open(path, sessionId);
    let outcome: T | undefined;
    try {
      file.write(() => {
        const snap = this.snapshot(owner, path, file, sessionId, includeDeleted);
        const mutation = decide(snap);
        let summary = snap.summary;
        if (mutation.change) {
          summary = { ...summary, ...mutation.change, revision: summary.revision + 1, modifiedAt: nowIso() };
          const bytes = statSync(path).size + Buffer.byteLength(encodeLines(mutation.lines));
          writeMeta(path, toMeta(summary, file.header, bytes, file.tree.getStoredEntries().length));
        }
        outcome = mutation.result(summary);
        return mutation.lines;
      });
    } catch (error) {
      // The tree may hold entries that never reached the disk: read the file afresh next time.
      this.forget(path);
      throw error;
    }
    return outcome as T;
  }

  private snapshot(
    owner: string,
    path: string,
    file: SessionFile,
    sessionId: string,
    includeDeleted: boolean,
  ): Snapshot {
    const meta = readMeta(path);
    if (meta?.deletedAt && !includeDeleted) throw sessionNotFound(sessionId);
    const lines = file.tree.getStoredEntries().length;
    const current = meta !== null && meta.lines === lines;
    const modifiedAt = current ? meta.modifiedAt : statSync(path).mtime.toISOString();
    const base = initialSummary(owner, file.header, modifiedAt);
    // The sidecar's counts when it describes this file: an append stays O(batch), not O(session).
    const derived = current ? derivedFrom(meta.cache) : applyEntries(base, file.tree.getEntries());
    const summary: SessionSummary = {
      ...base,
      ...derived,
      revision: revisionOf(meta, lines),
      leafId: syncLeafToFile(file.tree),
      deletedAt: meta?.deletedAt ?? null,
    };
    return { path, file, meta, summary };
  }

  /** A list row from the sidecar when it still describes the file, else from the file itself. */
  private listedSummary(owner: string, path: string, sessionId: string): SessionSummary {
    const meta = readMeta(path);
    if (meta && meta.bytes === statSync(path).size) {
      const base = initialSummary(owner, meta.header, meta.modifiedAt);
      return { ...base, ...meta.cache, revision: meta.revision, deletedAt: meta.deletedAt };
    }
    return this.read(owner, sessionId, true).summary;
  }

  private pathOf(owner: string, sessionId: string): string {
    // An unsafe id cannot name a stored session: answer as for a missing one, and never build a path from it.
    if (typeof sessionId !== "string" || !isSafeId(sessionId)) throw sessionNotFound(String(sessionId));
    return sessionPath(this.options.root, requireOwner(owner), sessionId);
  }

  private open(path: string, sessionId: string): SessionFile {
    const cached = this.files.get(path);
    if (cached) {
      this.files.delete(path);
      this.files.set(path, cached);
      return cached;
    }
    let file: SessionFile;
    try {
      file = SessionFile.open(path, { durability: this.options.durability });
    } catch (error) {
      if (isSessionTreeError(error, "session_not_found")) throw sessionNotFound(sessionId);
      throw error;
    }
    this.remember(path, file);
    return file;
  }

  private remember(path: string, file: SessionFile): void {
    this.files.set(path, file);
    for (const [oldest, old] of this.files) {
      if (this.files.size <= this.options.openFiles) break;
      old.close();
      this.files.delete(oldest);
    }
  }

  private forget(path: string): void {
    this.files.get(path)?.close();
    this.files.delete(path);
  }

  private remove(path: string): void {
    this.forget(path);
    unlinkSync(path);
    unlinkSync(metaPath(path));
  }
}

function derivedFrom(cache: SessionMeta["cache"]): DerivedFields {
  const { entryCount, messageCount, firstMessage, name } = cache;
  return { entryCount, messageCount, firstMessage, name };
}

function result(summary: SessionSummary): WriteResult {
  return { revision: summary.revision, leafId: summary.leafId };
}
