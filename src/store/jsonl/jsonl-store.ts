import { mkdirSync, statSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { isSafeId } from "../../core/validate.js";
import { SessionFile } from "../../file/session-file.js";
import { type ListQuery, selectPage } from "../engine/cursor.js";
import type {
  InsertOutcome,
  NewSession,
  PurgedSession,
  ReadTx,
  SessionKey,
  StoreDriver,
  WriteTx,
} from "../engine/driver.js";
import { EngineStore } from "../engine/engine-store.js";
import { leafMarkerFor } from "../engine/jsonl-transfer.js";
import { type DriverStep, syncValue } from "../engine/step.js";
import type { SessionSummary, StoreCapabilities } from "../store.js";
import { type JsonlSession, snapshotOf, summaryFromSidecar } from "./jsonl-session.js";
import type { JsonlStoreOptions } from "./jsonl-store-config.js";
import {
  allOwnerDirs,
  metaPath,
  ownerDir,
  readMeta,
  sessionIdsIn,
  sessionPath,
  toMeta,
  writeMeta,
} from "./jsonl-store-layout.js";
import { JsonlSessionTx } from "./jsonl-tx.js";
import { OpenFiles } from "./open-files.js";

/**
 * `SessionStore` over pi-format JSONL files (through the session file layer: one flock per write,
 * other writers' lines read first). Revision and soft delete live in a sidecar written under the
 * same lock (see jsonl-store-layout.ts); the leaf is kept with leaf markers, so pi opens the files
 * at the same leaf. Appends and revisions are safe across processes; create, purge and retention
 * are not coordinated between them.
 *
 * @example
 * const store = new JsonlStore({ root: "/var/lib/sessiontree" });
 * await store.init();
 */
export class JsonlStore extends EngineStore<JsonlSession> {
  constructor(options: JsonlStoreOptions) {
    super(new JsonlDriver(options));
  }
}

class JsonlDriver implements StoreDriver<JsonlSession> {
  readonly kind = "jsonl";
  readonly capabilities: StoreCapabilities = { persistent: true };
  private readonly options: Readonly<Required<JsonlStoreOptions>>;
  private readonly files: OpenFiles;

  constructor(options: JsonlStoreOptions) {
    this.options = Object.freeze({ durability: "os", openFiles: 64, ...options });
    this.files = new OpenFiles(this.options.openFiles, { durability: this.options.durability });
  }

  async init(): Promise<void> {
    mkdirSync(join(this.options.root, "owners"), { recursive: true });
  }

  async close(): Promise<void> {
    this.files.closeAll();
  }

  /** Runs `work` under the session file's lock, on the file caught up with other writers' lines. */
  writeSession<T>(key: SessionKey, work: (tx: WriteTx<JsonlSession>) => DriverStep<T>): DriverStep<T> {
    const path = this.pathOf(key);
    const file = path === null ? null : this.files.open(path);
    if (path === null || file === null) return work(new JsonlSessionTx(null));
    let tx: JsonlSessionTx | undefined;
    let outcome: T | undefined;
    try {
      file.write(() => {
        tx = new JsonlSessionTx(snapshotOf(key.owner, path, file));
        outcome = syncValue(work(tx), this.kind);
        return tx.lines;
      });
    } catch (error) {
      // The tree may hold entries that never reached the disk: read the file afresh next time.
      this.files.forget(path);
      throw error;
    }
    if (tx?.purged) this.remove(path);
    return outcome as T;
  }

  readSession<T>(key: SessionKey, work: (tx: ReadTx<JsonlSession>) => DriverStep<T>): T {
    return syncValue(work(new JsonlSessionTx(this.readNow(key))), this.kind);
  }

  findSummary(key: SessionKey): SessionSummary | null {
    return this.readNow(key)?.summary ?? null;
  }

  insertSession({ header, entries, summary }: NewSession): InsertOutcome {
    const path = sessionPath(this.options.root, summary.owner, header.id);
    const marker = leafMarkerFor(entries, summary.leafId);
    const lines = marker ? [...entries, marker] : entries;
    let file: SessionFile;
    try {
      file = SessionFile.create(path, header, lines, { durability: this.options.durability });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const existing = this.readNow({ owner: summary.owner, sessionId: header.id });
      return { inserted: false, existingRevision: existing?.summary.revision ?? 0 };
    }
    writeMeta(path, toMeta(summary, header, statSync(path), lines.length));
    this.files.remember(path, file);
    return { inserted: true };
  }

  listSessions(owner: string, query: ListQuery): SessionSummary[] {
    const dir = ownerDir(this.options.root, owner);
    const summaries: SessionSummary[] = [];
    for (const sessionId of sessionIdsIn(dir)) {
      const path = join(dir, `${sessionId}.jsonl`);
      const summary = summaryFromSidecar(owner, path) ?? this.readNow({ owner, sessionId })?.summary;
      if (summary) summaries.push(summary);
    }
    return selectPage(summaries, query);
  }

  purgeDeletedBefore(cutoff: string): PurgedSession[] {
    const purged: PurgedSession[] = [];
    for (const dir of allOwnerDirs(this.options.root)) {
      for (const sessionId of sessionIdsIn(dir)) {
        const path = join(dir, `${sessionId}.jsonl`);
        const meta = readMeta(path);
        if (meta?.deletedAt && meta.deletedAt < cutoff) {
          this.remove(path);
          purged.push({ owner: meta.owner, sessionId });
        }
      }
    }
    return purged;
  }

  /** The session as it is now (other processes' lines included); null when there is none. */
  private readNow(key: SessionKey): JsonlSession | null {
    const path = this.pathOf(key);
    const file = path === null ? null : this.files.open(path);
    if (path === null || file === null) return null;
    file.refresh();
    return snapshotOf(key.owner, path, file);
  }

  /** An unsafe id names no stored session, and never becomes a path: null. */
  private pathOf({ owner, sessionId }: SessionKey): string | null {
    if (typeof sessionId !== "string" || !isSafeId(sessionId)) return null;
    return sessionPath(this.options.root, owner, sessionId);
  }

  private remove(path: string): void {
    this.files.forget(path);
    unlinkSync(path);
    unlinkSync(metaPath(path));
  }
}
