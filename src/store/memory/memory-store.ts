import type { SessionEntry, SessionHeader } from "../../core/entry.js";
import { nowIso } from "../../core/ids.js";
import { planAppend } from "../append-plan.js";
import { normalizeEntryPage, normalizeListOptions, pageFromSummaries } from "../cursor.js";
import { exportSessionJsonl, parseImport } from "../jsonl-transfer.js";
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
import { applyEntries, buildHeader, initialSummary } from "../summary.js";
import { detachedEntry, idsToLookUp, validateBatch } from "../validate-batch.js";

interface MemorySession {
  summary: SessionSummary;
  header: SessionHeader;
  entries: SessionEntry[];
  byId: Map<string, SessionEntry>;
}

/**
 * The reference backend: every rule of `SessionStore` in plain maps, nothing persisted. Each
 * method runs synchronously to the end, so every write is atomic. Values handed out are copies.
 *
 * @example
 * const store = new MemoryStore();
 * const session = await store.createSession("alice", { cwd: "/work" });
 */
export class MemoryStore implements SessionStore {
  readonly kind = "memory";
  readonly capabilities: StoreCapabilities = Object.freeze({ multiProcess: false, persistent: false });
  /** owner → session id → session. */
  private readonly owners = new Map<string, Map<string, MemorySession>>();

  async init(): Promise<void> {}
  async close(): Promise<void> {}

  async createSession(owner: string, init?: CreateSessionInput): Promise<SessionSummary> {
    return this.insert(owner, buildHeader(init), [], null);
  }

  async loadSession(owner: string, sessionId: string, options?: ReadOptions): Promise<StoredSession> {
    const session = this.find(owner, sessionId, options?.includeDeleted);
    return {
      summary: { ...session.summary },
      header: clone(session.header),
      entries: clone(session.entries),
    };
  }

  async getSummary(owner: string, sessionId: string, options?: ReadOptions): Promise<SessionSummary> {
    return { ...this.find(owner, sessionId, options?.includeDeleted).summary };
  }

  async listSessions(owner: string, options?: ListOptions): Promise<Page<SessionSummary>> {
    const query = normalizeListOptions(options);
    const sessions = this.owners.get(requireOwner(owner))?.values() ?? [];
    return pageFromSummaries(
      [...sessions].map((session) => session.summary),
      query,
    );
  }

  async appendEntries(
    owner: string,
    sessionId: string,
    entries: SessionEntry[],
    options: AppendOptions = {},
  ): Promise<AppendResult> {
    const session = this.find(owner, sessionId);
    const batch = validateBatch(entries);
    const existing = new Map<string, SessionEntry>();
    for (const id of idsToLookUp(batch)) {
      const stored = session.byId.get(id);
      if (stored) existing.set(id, stored);
    }
    const plan = planAppend(batch, existing, session.summary.leafId, options.moveLeaf ?? true);
    const inserted = plan.toInsert.map((entry) => entry.id);
    if (!plan.changed) return { ...this.result(session), appended: [], skipped: plan.skipped };
    checkRevision(options.expectedRevision, session.summary.revision);
    for (const entry of plan.toInsert.map(detachedEntry)) {
      session.entries.push(entry);
      session.byId.set(entry.id, entry);
    }
    this.touch(session, { ...applyEntries(session.summary, plan.toInsert), leafId: plan.leafId });
    return { ...this.result(session), appended: inserted, skipped: plan.skipped };
  }

  async setLeaf(
    owner: string,
    sessionId: string,
    leafId: string | null,
    options: WriteOptions = {},
  ): Promise<WriteResult> {
    const session = this.find(owner, sessionId);
    if (leafId !== null && !session.byId.has(leafId)) throw entryNotFound(sessionId, leafId);
    if (leafId === session.summary.leafId) return this.result(session);
    checkRevision(options.expectedRevision, session.summary.revision);
    this.touch(session, { leafId });
    return this.result(session);
  }

  async readBranch(owner: string, sessionId: string, leafId?: string | null): Promise<SessionEntry[]> {
    const session = this.find(owner, sessionId);
    const start = leafId === undefined ? session.summary.leafId : leafId;
    if (start === null) return [];
    if (!session.byId.has(start)) throw entryNotFound(sessionId, start);
    const path: SessionEntry[] = [];
    // Parents always precede children (append rules), so this walk ends at a root.
    for (let id: string | null = start; id !== null; ) {
      const entry = session.byId.get(id) as SessionEntry;
      path.push(entry);
      id = entry.parentId;
    }
    return clone(path.reverse());
  }

  async readEntries(owner: string, sessionId: string, options?: EntryPageOptions): Promise<EntryPage> {
    const session = this.find(owner, sessionId);
    const { after, limit } = normalizeEntryPage(options);
    const entries = clone(session.entries.slice(after, after + limit));
    const end = after + entries.length;
    return { entries, nextAfter: end < session.entries.length ? end : null };
  }

  async deleteSession(owner: string, sessionId: string, options: WriteOptions = {}): Promise<WriteResult> {
    const session = this.find(owner, sessionId, true);
    if (session.summary.deletedAt !== null) return this.result(session);
    checkRevision(options.expectedRevision, session.summary.revision);
    this.touch(session, { deletedAt: nowIso() });
    return this.result(session);
  }

  async restoreSession(owner: string, sessionId: string, options: WriteOptions = {}): Promise<WriteResult> {
    const session = this.find(owner, sessionId, true);
    if (session.summary.deletedAt === null) return this.result(session);
    checkRevision(options.expectedRevision, session.summary.revision);
    this.touch(session, { deletedAt: null });
    return this.result(session);
  }

  async purgeSession(owner: string, sessionId: string): Promise<void> {
    this.find(owner, sessionId, true);
    this.owners.get(owner)?.delete(sessionId);
  }

  async purgeDeletedBefore(cutoff: Date): Promise<Array<{ owner: string; sessionId: string }>> {
    const limit = cutoff.toISOString();
    const purged: Array<{ owner: string; sessionId: string }> = [];
    for (const [owner, sessions] of this.owners) {
      for (const [sessionId, session] of sessions) {
        const deletedAt = session.summary.deletedAt;
        if (deletedAt !== null && deletedAt < limit) {
          sessions.delete(sessionId);
          purged.push({ owner, sessionId });
        }
      }
    }
    return purged;
  }

  async exportJsonl(owner: string, sessionId: string): Promise<string> {
    const session = this.find(owner, sessionId);
    return exportSessionJsonl(session.header, session.entries, session.summary.leafId);
  }

  async importJsonl(owner: string, jsonl: string, options?: ImportOptions): Promise<SessionSummary> {
    const imported = parseImport(jsonl, options);
    return this.insert(owner, imported.header, imported.entries.map(detachedEntry), imported.leafId);
  }

  private insert(
    owner: string,
    header: SessionHeader,
    entries: SessionEntry[],
    leafId: string | null,
  ): SessionSummary {
    let sessions = this.owners.get(requireOwner(owner));
    const taken = sessions?.get(header.id);
    if (taken) throw sessionExists(header.id, taken.summary.revision);
    const base = initialSummary(owner, header, nowIso());
    const summary = { ...base, ...applyEntries(base, entries), leafId };
    const session = { summary, header: clone(header), entries, byId: new Map(entries.map((e) => [e.id, e])) };
    if (!sessions) {
      sessions = new Map();
      this.owners.set(owner, sessions);
    }
    sessions.set(header.id, session);
    return { ...summary };
  }

  /** The session, or `session_not_found` (also for another owner's and, unless asked, deleted ones). */
  private find(owner: string, sessionId: string, includeDeleted = false): MemorySession {
    const session = this.owners.get(requireOwner(owner))?.get(sessionId);
    if (!session || (session.summary.deletedAt !== null && !includeDeleted)) throw sessionNotFound(sessionId);
    return session;
  }

  /** Applies a change: new revision, new modifiedAt. */
  private touch(session: MemorySession, change: Partial<SessionSummary>): void {
    const { revision } = session.summary;
    session.summary = { ...session.summary, ...change, revision: revision + 1, modifiedAt: nowIso() };
  }

  private result(session: MemorySession): WriteResult {
    return { revision: session.summary.revision, leafId: session.summary.leafId };
  }
}

function clone<T>(value: T): T {
  return structuredClone(value);
}
