import type { SessionEntry, SessionHeader } from "../../core/entry.js";
import { nowIso } from "../../core/ids.js";
import type { SearchHit } from "../../core/search-hit.js";
import { scanSearch } from "../search/scan-search.js";
import { captureSearchTexts, type SearchTexts } from "../search/search-docs.js";
import { parseSearch } from "../search/search-query.js";
import type {
  AppendOptions,
  AppendResult,
  BranchSince,
  CreateSessionInput,
  EntryPage,
  EntryPageOptions,
  ImportOptions,
  InTransaction,
  JsonlPieces,
  ListOptions,
  Page,
  PagedReadOptions,
  PagedSession,
  PayloadReadOptions,
  PurgedSessions,
  ReadOptions,
  SearchOptions,
  SessionStore,
  SessionSummary,
  StoreCapabilities,
  StoredSession,
  TxSql,
  WriteOptions,
  WriteOutcome,
  WriteResult,
} from "../store.js";
import { applyEntries, buildHeader, initialSummary } from "../summary.js";
import { normalizeEntryPage, normalizeListOptions, toPage } from "./cursor.js";
import type { ReadTx, SessionKey, StoreDriver, WriteTx } from "./driver.js";
import { exportSessionJsonl, parseImport } from "./jsonl-transfer.js";
import { entryPages, jsonlPieces, pageSizeOf } from "./paged-read.js";
import { type PayloadHooks, SessionArchivedSignal, withPrepared } from "./payload-hooks.js";
import {
  branchFlow,
  branchSinceFlow,
  entryPageFlow,
  exportFlow,
  hasEntryFlow,
  headFlow,
  isVisible,
  loadFlow,
} from "./read-flows.js";
import { requireOwner, sessionExists, sessionNotFound } from "./rules.js";
import { type DriverStep, runFlow, type StoreFlow, wait } from "./step.js";
import { checkHeaderLimits, validateBatch } from "./validate-batch.js";
import { appendFlow, purgeFlow, setDeletedFlow, setLeafFlow, withinWrite } from "./write-flows.js";

/**
 * `SessionStore` over a `StoreDriver`: every rule of the contract, once. A call checks its
 * arguments first (nothing is locked while a batch is validated), then runs its flow
 * (read-flows.ts, write-flows.ts) in the driver's read snapshot or locked write.
 *
 * @example
 * class MyStore extends EngineStore<MyHandle> {
 *   constructor(options: MyOptions) { super(new MyDriver(options)); }
 * }
 */
export class EngineStore<S = unknown> implements SessionStore {
  readonly kind: string;
  readonly capabilities: StoreCapabilities;

  constructor(
    private readonly driver: StoreDriver<S>,
    /** Large payloads out of line (SQL stores given a blob store); none: entries keep them. */
    protected readonly payloads?: PayloadHooks<S>,
  ) {
    this.kind = driver.kind;
    this.capabilities = Object.freeze({ ...driver.capabilities });
  }

  init(): Promise<void> {
    return this.driver.init();
  }

  close(): Promise<void> {
    return this.driver.close();
  }

  async createSession(
    owner: string,
    init?: CreateSessionInput,
    options?: InTransaction<SessionSummary>,
  ): Promise<SessionSummary> {
    return this.insert(owner, buildHeader(init), [], null, options?.within);
  }

  async importJsonl(
    owner: string,
    jsonl: string,
    options?: ImportOptions & InTransaction<SessionSummary>,
  ): Promise<SessionSummary> {
    const imported = parseImport(jsonl, options);
    checkHeaderLimits(imported.header);
    const { header, leafId } = imported;
    const payloads = this.payloads;
    if (!payloads) return this.insert(owner, header, imported.entries, leafId, options?.within);
    // The same owner's blobs are the same content: an import of an export shares its blobs.
    const searchTexts = captureSearchTexts(imported.entries);
    return withPrepared(payloads, requireOwner(owner), imported.entries, (prepared) => {
      const confirm = (sql: TxSql) => runFlow(payloads.confirmInInsert(sql, owner, header.id, prepared));
      return this.insert(owner, header, prepared.entries, leafId, options?.within, confirm, searchTexts);
    });
  }

  async loadSession(owner: string, sessionId: string, options?: ReadOptions): Promise<StoredSession> {
    const includeDeleted = options?.includeDeleted ?? false;
    const loaded = await this.read(owner, sessionId, (tx) => loadFlow(tx, sessionId, includeDeleted));
    return { ...loaded, entries: await this.resolved(owner, loaded.entries, options) };
  }

  async getSummary(owner: string, sessionId: string, options?: ReadOptions): Promise<SessionSummary> {
    const summary = await this.driver.findSummary(keyOf(owner, sessionId));
    if (!isVisible(summary, options?.includeDeleted ?? false)) throw sessionNotFound(sessionId);
    return summary;
  }

  async listSessions(owner: string, options?: ListOptions): Promise<Page<SessionSummary>> {
    const query = normalizeListOptions(options);
    return toPage(await this.driver.listSessions(requireOwner(owner), query), query.limit);
  }

  async appendEntries(
    owner: string,
    sessionId: string,
    entries: SessionEntry[],
    options: AppendOptions = {},
  ): Promise<AppendResult> {
    const batch = validateBatch(entries, { history: options.history });
    const payloads = this.payloads;
    if (!payloads) {
      return this.write(owner, sessionId, (tx) => appendFlow(tx, sessionId, batch, options), options.within);
    }
    const searchTexts = captureSearchTexts(batch);
    return withPrepared(payloads, requireOwner(owner), batch, (prepared) => {
      const flow = (tx: WriteTx<S>) =>
        appendFlow(
          tx,
          sessionId,
          prepared.entries,
          options,
          (ref) => payloads.confirmInWrite(tx, ref, prepared),
          searchTexts,
        );
      return this.write(owner, sessionId, flow, options.within);
    });
  }

  async setLeaf(
    owner: string,
    sessionId: string,
    leafId: string | null,
    options: WriteOptions = {},
  ): Promise<WriteResult> {
    return this.write(owner, sessionId, (tx) => setLeafFlow(tx, sessionId, leafId, options), options.within);
  }

  async readBranch(
    owner: string,
    sessionId: string,
    leafId?: string | null,
    options?: PayloadReadOptions,
  ): Promise<SessionEntry[]> {
    const path = await this.read(owner, sessionId, (tx) => branchFlow(tx, sessionId, leafId));
    return this.resolved(owner, path, options);
  }

  async readBranchSince(
    owner: string,
    sessionId: string,
    knownId: string | null,
    leafId?: string | null,
    options?: PayloadReadOptions,
  ): Promise<BranchSince> {
    const read = await this.read(owner, sessionId, (tx) => branchSinceFlow(tx, sessionId, knownId, leafId));
    return { ...read, entries: await this.resolved(owner, read.entries, options) };
  }

  async readEntries(owner: string, sessionId: string, options?: EntryPageOptions): Promise<EntryPage> {
    const page = normalizeEntryPage(options);
    const read = await this.read(owner, sessionId, (tx) => entryPageFlow(tx, sessionId, page));
    return { ...read, entries: await this.resolved(owner, read.entries, options) };
  }

  async openPages(owner: string, sessionId: string, options: PagedReadOptions = {}): Promise<PagedSession> {
    const pageSize = pageSizeOf(options.pageSize);
    const { summary, header } = await this.read(owner, sessionId, (tx) => headFlow(tx, sessionId));
    const readPage = (after: number, limit: number) =>
      this.readEntries(owner, sessionId, { after, limit, references: options.references });
    return { summary, header, pages: entryPages(readPage, summary.entryCount, pageSize) };
  }

  async hasEntry(owner: string, sessionId: string, entryId: string): Promise<boolean> {
    return this.read(owner, sessionId, (tx) => hasEntryFlow(tx, sessionId, entryId));
  }

  async deleteSession(owner: string, sessionId: string, options: WriteOptions = {}): Promise<WriteResult> {
    const flow = (tx: WriteTx<S>) => setDeletedFlow(tx, sessionId, true, options);
    return this.write(owner, sessionId, flow, options.within);
  }

  async restoreSession(owner: string, sessionId: string, options: WriteOptions = {}): Promise<WriteResult> {
    const flow = (tx: WriteTx<S>) => setDeletedFlow(tx, sessionId, false, options);
    return this.write(owner, sessionId, flow, options.within);
  }

  async purgeSession(owner: string, sessionId: string, options?: InTransaction<null>): Promise<void> {
    await this.write(owner, sessionId, (tx) => purgeFlow(tx, sessionId), options?.within);
    await this.payloads?.afterPurge([owner]);
  }

  async purgeDeletedBefore(cutoff: Date, options?: InTransaction<PurgedSessions>): Promise<PurgedSessions> {
    const purged = await this.purgeDeleted(cutoff, options?.within);
    if (purged.length > 0) await this.payloads?.afterPurge(purged.map((session) => session.owner));
    return purged;
  }

  private async purgeDeleted(
    cutoff: Date,
    within: InTransaction<PurgedSessions>["within"],
  ): Promise<PurgedSessions> {
    const outcome = (purged: PurgedSessions) => ({
      result: purged,
      changed: purged.length > 0,
      summary: null,
    });
    if (!within) return this.driver.purgeDeletedBefore(cutoff.toISOString());
    if (this.driver.capabilities.transactions) {
      return this.driver.purgeDeletedBefore(cutoff.toISOString(), (purged, sql) =>
        within(outcome(purged), sql),
      );
    }
    const purged = await this.driver.purgeDeletedBefore(cutoff.toISOString());
    await within(outcome(purged), null);
    return purged;
  }

  /** pi JSONL files stay self-contained (pi must read them): payloads are always inline here. */
  async exportJsonl(owner: string, sessionId: string): Promise<string> {
    if (!this.payloads) return this.read(owner, sessionId, (tx) => exportFlow(tx, sessionId));
    const { header, entries, summary } = await this.loadSession(owner, sessionId);
    return exportSessionJsonl(header, entries, summary.leafId);
  }

  /** Payloads inline, as `exportJsonl`: the pieces of a file pi can read. */
  async exportJsonlPages(
    owner: string,
    sessionId: string,
    options: { pageSize?: number } = {},
  ): Promise<JsonlPieces> {
    const paged = await this.openPages(owner, sessionId, { pageSize: options.pageSize });
    return { summary: paged.summary, pieces: jsonlPieces(paged) };
  }

  async search(owner: string, query: string, options?: SearchOptions): Promise<SearchHit[]> {
    const parsed = parseSearch(requireOwner(owner), query, options);
    if (parsed.sessionId !== null) {
      const summary = await this.driver.findSummary(keyOf(owner, parsed.sessionId));
      if (!isVisible(summary, parsed.includeDeleted)) throw sessionNotFound(parsed.sessionId);
    }
    if (!this.driver.search) return scanSearch(this.driver, parsed);
    return this.driver.search(parsed);
  }

  /** Creation and import: a new session whose summary already counts its entries. */
  private async insert(
    owner: string,
    header: SessionHeader,
    entries: SessionEntry[],
    leafId: string | null,
    within: InTransaction<SessionSummary>["within"],
    confirm?: (sql: TxSql) => DriverStep<void>,
    searchTexts?: SearchTexts,
  ): Promise<SessionSummary> {
    const base = initialSummary(requireOwner(owner), header, nowIso());
    const summary: SessionSummary = { ...base, ...applyEntries(base, entries), leafId };
    const created = (): WriteOutcome<SessionSummary> => ({
      result: { ...summary },
      changed: true,
      summary: { ...summary },
    });
    const caller =
      within && this.driver.capabilities.transactions ? (sql: TxSql) => within(created(), sql) : undefined;
    const inside = confirm ? (sql: TxSql) => runFlow(inOrder(sql, confirm, caller)) : caller;
    const outcome = await this.driver.insertSession({ header, entries, summary, searchTexts }, inside);
    if (!outcome.inserted) throw sessionExists(header.id, outcome.existingRevision);
    if (within && !caller) await within(created(), null);
    return { ...summary };
  }

  /** Entries as the caller asked: payloads inline (the default) or as stored, with references. */
  private async resolved(
    owner: string,
    entries: SessionEntry[],
    options: PayloadReadOptions | undefined,
  ): Promise<SessionEntry[]> {
    if (!this.payloads || options?.references) return entries;
    return this.payloads.resolve(owner, entries);
  }

  private read<T>(owner: string, sessionId: string, flow: (tx: ReadTx<S>) => StoreFlow<T>): Promise<T> {
    return this.restoring(() => this.driver.readSession(keyOf(owner, sessionId), (tx) => runFlow(flow(tx))));
  }

  private write<T>(
    owner: string,
    sessionId: string,
    flow: (tx: WriteTx<S>) => StoreFlow<WriteOutcome<T>>,
    within: InTransaction<T>["within"],
  ): Promise<T> {
    return this.restoring(() =>
      this.driver.writeSession(keyOf(owner, sessionId), (tx) => runFlow(withinWrite(tx, flow(tx), within))),
    );
  }

  /** Runs a call; when it meets an archived session, restores it and runs the call again. */
  private async restoring<T>(call: () => DriverStep<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof SessionArchivedSignal) || !this.payloads) throw error;
      await this.payloads.restore(error.owner, error.sessionId);
      return await call();
    }
  }
}

/** A `SessionStore` over a driver, for a backend that needs no class of its own. */
export function createStore<S>(driver: StoreDriver<S>): SessionStore {
  return new EngineStore(driver);
}

/** Blob claims first, then the caller's work, in the insert's transaction. */
function* inOrder(
  sql: TxSql,
  first: (sql: TxSql) => DriverStep<void>,
  then: ((sql: TxSql) => DriverStep<void>) | undefined,
): StoreFlow<void> {
  yield* wait(first(sql));
  if (then) yield* wait(then(sql));
}

function keyOf(owner: string, sessionId: string): SessionKey {
  return { owner: requireOwner(owner), sessionId };
}
