import { statSync } from "node:fs";
import type { SessionTreeClient } from "../client/client.js";
import { SessionTreeApiError } from "../client/errors.js";
import { CURRENT_SESSION_VERSION, type SessionEntry, type SessionHeader } from "../core/entry.js";
import { migrateFile } from "../file/migrate.js";
import type { Layout } from "../file/paths.js";
import { SessionFile } from "../file/session-file.js";
import { fileLeaf, type LeafMode, remoteLeafAfterPush } from "./leaf.js";
import type { SessionWork } from "./plan.js";
import { createFromRemote, pullIntoFile } from "./pull.js";
import { batches, planPush } from "./push.js";
import type { SessionSyncState } from "./state.js";

/** The calls of the service a sync makes (the typed client; tests may wrap its fetch). */
export type SyncRemote = Pick<
  SessionTreeClient,
  "getSession" | "readEntries" | "syncAppend" | "setLeaf" | "putSyncSession" | "syncState"
>;

export interface SessionSyncOptions {
  remote: SyncRemote;
  root: string;
  layout: Layout;
  leaf: LeafMode;
  dryRun: boolean;
}

/** What a sync did to one session (with `dryRun`, what it would do). */
export interface SessionReport {
  id: string;
  path: string | null;
  /** Entries sent (with `dryRun`: that the service may lack). */
  pushed: number;
  /** Entries written into the local file. */
  pulled: number;
  /** "local": a new local file; "remote": a new session on the service. */
  created: "local" | "remote" | null;
  /** Leaf moves: of the local file, of the service's session. */
  localLeaf?: { from: string | null; to: string | null };
  remoteLeaf?: { from: string | null; to: string | null };
  /** Deleted on the service: this copy is kept and not pushed back. */
  gone?: boolean;
  /** Ids held with other content on the two sides (each side keeps its own). */
  conflicts?: string[];
  error?: { code: string; message: string };
}

/** Where the service's session stands when this sync reads it. */
interface RemoteView {
  revision: number;
  entryCount: number;
  leafId: string | null;
  header: SessionHeader;
}

/**
 * Syncs one session: reads where the service stands (creating the session there under the local
 * header if it has none), pulls the entries after the last watermark into the local file, pushes
 * the local entries the service lacks (parents first, in batches, idempotent by id), then moves a
 * leaf if the leaf mode says so. Answers the report and the state to save (null: forget it).
 */
export async function syncSession(
  work: SessionWork,
  options: SessionSyncOptions,
): Promise<{ report: SessionReport; state: SessionSyncState | null }> {
  try {
    return await syncFrom(work, options);
  } catch (error) {
    // The saved watermarks describe another life of the session there (purged, then pushed again
    // by an older copy, with the same counts): a push built on them misses parents the service
    // no longer has. Once more from nothing, comparing every id: the copies merge by union.
    if (work.state === undefined || !isRefusedEntry(error)) throw error;
    return await syncFrom({ ...work, state: undefined }, options);
  }
}

function isRefusedEntry(error: unknown): boolean {
  return error instanceof SessionTreeApiError && error.status === 400 && error.code === "invalid_entry";
}

async function syncFrom(
  work: SessionWork,
  options: SessionSyncOptions,
): Promise<{ report: SessionReport; state: SessionSyncState | null }> {
  const report: SessionReport = {
    id: work.id,
    path: work.local?.path ?? null,
    pushed: 0,
    pulled: 0,
    created: null,
  };
  if (work.onServer === "gone") return goneResult(work, report);
  let file = work.local ? openForSync(work.local.path, options.dryRun) : undefined;
  try {
    const remote = await remoteView(work, file, options, report);
    if (remote === "gone") return goneResult(work, report);
    const prior = startingPoint(work, remote);
    const pulled = await readRemote(options.remote, work.id, prior.after, remote.entryCount);
    if (!file) {
      if (options.dryRun) {
        report.pulled = pulled.entries.length;
        return { report, state: work.state ?? null };
      }
      const created = createFromRemote(
        options.root,
        options.layout,
        remote.header,
        pulled.entries,
        remote.leafId,
      );
      report.path = created.path;
      report.pulled = created.written;
      report.created = "local";
      file = SessionFile.open(created.path);
    } else {
      const outcome = pullIntoFile(file, pulled.entries, remote.leafId, options.leaf, options.dryRun);
      report.pulled = outcome.written;
      if (outcome.conflicts.length > 0) report.conflicts = outcome.conflicts;
      if (outcome.leafAfter !== outcome.leafBefore)
        report.localLeaf = { from: outcome.leafBefore, to: outcome.leafAfter };
    }
    const remoteIds = new Set(pulled.entries.map((entry) => entry.id));
    const pushing = planPush(file.tree, prior.stored, remoteIds);
    report.pushed = pushing.entries.length;
    if (options.dryRun) return { report, state: work.state ?? null };
    const chain = { revision: remote.revision, entryCount: remote.entryCount, intact: true };
    await pushEntries(options.remote, work.id, pushing.entries, chain);
    await moveRemoteLeaf(file, remote, options, chain, report);
    const after = chain.intact ? chain.entryCount : pulled.after;
    const mark = chain.intact ? chain : remote;
    return { report, state: finalState(file, pushing.upTo, after, mark) };
  } finally {
    file?.close();
  }
}

/** Opens the local file; an older (v1/v2) file is rewritten as v3 first, as pi would need. */
function openForSync(path: string, dryRun: boolean): SessionFile {
  const file = SessionFile.open(path);
  if (dryRun || file.migratedFrom === null) return file;
  file.close();
  migrateFile(path, { leaveOutDamaged: true });
  return SessionFile.open(path);
}

/**
 * The watermarks to start from: none when the file is new, gone, or was replaced (a repair), or
 * when the session there is not the one they were taken from (it was gone when last seen, or it
 * stands behind them: purged and pushed again).
 */
function startingPoint(work: SessionWork, remote: RemoteView): { stored: number; after: number } {
  const state = work.state;
  if (!state || !work.local) return { stored: 0, after: 0 };
  if (state.gone || remote.revision < state.revision || remote.entryCount < state.after)
    return { stored: 0, after: 0 };
  const sameFile =
    state.path === work.local.path && state.ino === work.local.ino && state.size <= work.local.size;
  return sameFile ? { stored: state.stored, after: state.after } : { stored: 0, after: 0 };
}

async function remoteView(
  work: SessionWork,
  file: SessionFile | undefined,
  options: SessionSyncOptions,
  report: SessionReport,
): Promise<RemoteView | "gone"> {
  if (work.onServer === "yes") {
    try {
      const summary = await options.remote.getSession(work.id);
      const header: SessionHeader = {
        type: "session",
        version: CURRENT_SESSION_VERSION,
        id: summary.id,
        timestamp: summary.createdAt,
        cwd: summary.cwd,
      };
      if (summary.parentSession !== undefined) header.parentSession = summary.parentSession;
      // A local file under the same id with another header is another session: not merged.
      if (file && !sameHeader(header, file.header)) throw new HeaderMismatch(work.id);
      return { revision: summary.revision, entryCount: summary.entryCount, leafId: summary.leafId, header };
    } catch (error) {
      if (error instanceof SessionTreeApiError && error.status === 404) return "gone";
      throw error;
    }
  }
  if (!file) throw new Error(`session ${work.id} is neither local nor on the service`);
  const header = file.header;
  if (options.dryRun) return { revision: 0, entryCount: 0, leafId: null, header };
  const input = { timestamp: header.timestamp, cwd: typeof header.cwd === "string" ? header.cwd : "" };
  const parent = header.parentSession === undefined ? {} : { parentSession: header.parentSession };
  const there = await options.remote.putSyncSession(work.id, { ...input, ...parent });
  if (there.deletedAt !== null) return "gone";
  if (!sameHeader(there.header, header)) throw new HeaderMismatch(work.id);
  if (there.created) report.created = "remote";
  return { revision: there.revision, entryCount: there.entryCount, leafId: there.leafId, header };
}

/** Two sessions under one id with other headers are two sessions: not merged, reported. */
export class HeaderMismatch extends Error {
  readonly code = "header_mismatch";
  constructor(id: string) {
    super(`Session ${id} on the service has another header (cwd, timestamp or parent): not synced`);
  }
}

function sameHeader(
  there: { timestamp: string; cwd: string; parentSession?: string },
  here: SessionHeader,
): boolean {
  const cwd = typeof here.cwd === "string" ? here.cwd : "";
  return (
    there.timestamp === here.timestamp && there.cwd === cwd && there.parentSession === here.parentSession
  );
}

/** The service's entries after `after` (storage order), page by page, and the position read to. */
async function readRemote(remote: SyncRemote, id: string, after: number, entryCount: number) {
  const entries: SessionEntry[] = [];
  let at = after;
  if (entryCount <= after) return { entries, after: at };
  for (;;) {
    const page = await remote.readEntries(id, { after: at, limit: 1000 });
    entries.push(...(page.entries as SessionEntry[]));
    // Positions are dense (1, 2, …): the last page ends `length` past where it started. Were they
    // not, this would only fall short, and the next sync read some entries again.
    if (page.nextAfter === null) return { entries, after: at + page.entries.length };
    at = page.nextAfter;
  }
}

/** Revisions this sync produced, one per write that changed something: broken by anyone else's write. */
interface Chain {
  revision: number;
  entryCount: number;
  intact: boolean;
}

async function pushEntries(remote: SyncRemote, id: string, entries: SessionEntry[], chain: Chain) {
  for (const batch of batches(entries)) {
    const result = await remote.syncAppend(id, batch);
    if (result.appended.length === 0) continue;
    follow(chain, result.revision);
    chain.entryCount += result.appended.length;
  }
}

function follow(chain: Chain, revision: number): void {
  if (revision !== chain.revision + 1) chain.intact = false;
  chain.revision = revision;
}

async function moveRemoteLeaf(
  file: SessionFile,
  remote: RemoteView,
  options: SessionSyncOptions,
  chain: Chain,
  report: SessionReport,
): Promise<void> {
  const local = fileLeaf(file.tree);
  const target = remoteLeafAfterPush(options.leaf, file.tree, local, remote.leafId);
  // After someone else's write the service's leaf may have moved: leave it for the next sync.
  if (target === undefined || !chain.intact) return;
  try {
    const result = await options.remote.setLeaf(file.header.id, target, { ifMatch: chain.revision });
    follow(chain, result.revision);
    report.remoteLeaf = { from: remote.leafId, to: target };
  } catch (error) {
    if (!(error instanceof SessionTreeApiError && error.status === 412)) throw error;
    chain.intact = false;
  }
}

/**
 * The state to save. The file's stamp is taken, then the file is read on: if anything was appended
 * since the entries were counted (pi writing meanwhile), the stamp is spoiled so the next sync
 * looks at the file again instead of trusting it.
 */
function finalState(
  file: SessionFile,
  stored: number,
  after: number,
  mark: { revision: number; entryCount: number },
): SessionSyncState {
  const stats = statSync(file.path);
  file.refresh();
  const settled = file.tree.getStoredEntries().length === stored;
  return {
    path: file.path,
    ino: stats.ino,
    size: stats.size,
    mtimeMs: settled ? stats.mtimeMs : -1,
    stored,
    after,
    revision: mark.revision,
    entryCount: mark.entryCount,
  };
}

function goneResult(work: SessionWork, report: SessionReport) {
  report.gone = true;
  const base = work.state ?? {
    path: work.local?.path ?? "",
    ino: 0,
    size: 0,
    mtimeMs: -1,
    stored: 0,
    after: 0,
  };
  return { report, state: { ...base, revision: 0, entryCount: 0, gone: true } };
}
