import type { SessionEntry, SessionHeader } from "../../core/entry.js";
import { copyJson } from "../../core/json-copy.js";
import { type ListQuery, selectPage } from "../engine/cursor.js";
import type {
  BranchTail,
  FoundSession,
  InsertOutcome,
  NewSession,
  PurgedSession,
  ReadTx,
  SessionKey,
  StoreDriver,
  StoredId,
  WriteTx,
} from "../engine/driver.js";
import { EngineStore } from "../engine/engine-store.js";
import type { DriverStep } from "../engine/step.js";
import { detachedEntry } from "../engine/validate-batch.js";
import type { SessionSummary, StoreCapabilities } from "../store.js";

interface MemorySession {
  summary: SessionSummary;
  header: SessionHeader;
  entries: SessionEntry[];
  byId: Map<string, SessionEntry>;
}

/**
 * The reference backend: plain maps, nothing persisted. Every driver call answers synchronously,
 * so each store call runs to its end in one go and every write is atomic. What it hands out is a copy.
 *
 * @example
 * const store = new MemoryStore();
 * const session = await store.createSession("alice", { cwd: "/work" });
 */
export class MemoryStore extends EngineStore<MemorySession> {
  constructor() {
    super(new MemoryDriver());
  }
}

class MemoryDriver implements StoreDriver<MemorySession> {
  readonly kind = "memory";
  readonly capabilities: StoreCapabilities = { persistent: false };
  /** owner → session id → session. */
  private readonly owners = new Map<string, Map<string, MemorySession>>();

  async init(): Promise<void> {}
  async close(): Promise<void> {}

  /** Reads and writes alike: each runs to its end synchronously, so nothing comes in between. */
  writeSession<T>(key: SessionKey, work: (tx: WriteTx<MemorySession>) => DriverStep<T>): DriverStep<T> {
    return work(new MemorySessionTx(this.owners.get(key.owner), key.sessionId));
  }

  readSession<T>(key: SessionKey, work: (tx: ReadTx<MemorySession>) => DriverStep<T>): DriverStep<T> {
    return work(new MemorySessionTx(this.owners.get(key.owner), key.sessionId));
  }

  findSummary(key: SessionKey): SessionSummary | null {
    const session = this.session(key);
    return session ? { ...session.summary } : null;
  }

  insertSession({ header, entries, summary }: NewSession): InsertOutcome {
    let sessions = this.owners.get(summary.owner);
    const taken = sessions?.get(header.id);
    if (taken) return { inserted: false, existingRevision: taken.summary.revision };
    const kept = entries.map(detachedEntry);
    const byId = new Map(kept.map((entry) => [entry.id, entry]));
    const session = { summary: { ...summary }, header: clone(header), entries: kept, byId };
    if (!sessions) {
      sessions = new Map();
      this.owners.set(summary.owner, sessions);
    }
    sessions.set(header.id, session);
    return { inserted: true };
  }

  listSessions(owner: string, query: ListQuery): SessionSummary[] {
    const sessions = this.owners.get(owner)?.values() ?? [];
    return selectPage(
      [...sessions].map((session) => session.summary),
      query,
    );
  }

  purgeDeletedBefore(cutoff: string): PurgedSession[] {
    const purged: PurgedSession[] = [];
    for (const [owner, sessions] of this.owners) {
      for (const [sessionId, session] of sessions) {
        const deletedAt = session.summary.deletedAt;
        if (deletedAt !== null && deletedAt < cutoff) {
          sessions.delete(sessionId);
          purged.push({ owner, sessionId });
        }
      }
    }
    return purged;
  }

  private session(key: SessionKey): MemorySession | undefined {
    return this.owners.get(key.owner)?.get(key.sessionId);
  }
}

/** One session's reads and writes: its own objects, copied on the way in and out. */
class MemorySessionTx implements WriteTx<MemorySession> {
  constructor(
    private readonly sessions: Map<string, MemorySession> | undefined,
    private readonly sessionId: string,
  ) {}

  find(): FoundSession<MemorySession> | null {
    const session = this.sessions?.get(this.sessionId);
    return session ? { summary: { ...session.summary }, ref: session } : null;
  }

  header(session: MemorySession): SessionHeader {
    return clone(session.header);
  }

  entries(session: MemorySession, after: number, limit: number | null): SessionEntry[] {
    return clone(session.entries.slice(after, limit === null ? undefined : after + limit));
  }

  branch(session: MemorySession, leafId: string): SessionEntry[] {
    return clone(walkToRoot(session.byId, leafId));
  }

  branchSince(session: MemorySession, leafId: string, knownId: string): BranchTail {
    const { path, reached } = walkUp(session.byId, leafId, knownId);
    return { entries: clone(path), reached };
  }

  entriesByIds(session: MemorySession, ids: readonly string[]): Map<string, StoredId> {
    const stored = new Map<string, StoredId>();
    for (const id of ids) {
      const entry = session.byId.get(id);
      if (entry) stored.set(id, entry);
    }
    return stored;
  }

  hasEntry(session: MemorySession, entryId: string): boolean {
    return session.byId.has(entryId);
  }

  insertEntries(session: MemorySession, entries: readonly SessionEntry[]): void {
    for (const entry of entries.map(detachedEntry)) {
      session.entries.push(entry);
      session.byId.set(entry.id, entry);
    }
  }

  updateSession(session: MemorySession, next: SessionSummary): void {
    session.summary = { ...next };
  }

  purgeSession(): void {
    this.sessions?.delete(this.sessionId);
  }
}

/** Root → `leafId`; parents always precede children (append rules), so the walk ends at a root. */
function walkToRoot(byId: ReadonlyMap<string, SessionEntry>, leafId: string): SessionEntry[] {
  return walkUp(byId, leafId, null).path;
}

/** `stopId` → `leafId`, `stopId` left out (`reached`), or root → `leafId` when the walk never meets it. */
function walkUp(
  byId: ReadonlyMap<string, SessionEntry>,
  leafId: string,
  stopId: string | null,
): { path: SessionEntry[]; reached: boolean } {
  const path: SessionEntry[] = [];
  for (let id: string | null = leafId; id !== null; ) {
    const entry = byId.get(id);
    if (!entry) break;
    if (id === stopId) return { path: path.reverse(), reached: true };
    path.push(entry);
    id = entry.parentId;
  }
  return { path: path.reverse(), reached: false };
}

/** What this store keeps is plain JSON (`detachedEntry`), so a JSON copy is an exact one. */
function clone<T>(value: T): T {
  return copyJson(value);
}
