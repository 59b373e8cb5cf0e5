import { gunzipSync, gzipSync } from "node:zlib";
import type { FoundSession, WriteTx } from "../engine/driver.js";
import { exportSessionJsonl, parseImport } from "../engine/jsonl-transfer.js";
import { type PreparedBatch, withPrepared } from "../engine/payload-hooks.js";
import { runFlow, type StoreFlow, wait } from "../engine/step.js";
import type { SessionRow } from "../sql/rows.js";
import type { SessionStore } from "../store.js";
import { BlobError, sha256Hex } from "./blob-store.js";
import type { SqlPayloads } from "./sql-payloads.js";

/**
 * Archive: a session untouched for a while leaves the database as one gzip-compressed pi JSONL
 * object (payloads inline, leaf marker when the leaf is not the last entry: pi can read it), stored
 * as a blob of its owner and referenced by the session row like any other blob; the row keeps its
 * summary, with `archived_at` set. Its entries and their references go, so collections reclaim
 * blobs only it held. Any read or write of its entries restores it first (`restoreArchived`), so
 * callers never notice; revision and modifiedAt are left as they were (archiving changes nothing a
 * caller sees).
 */
const ARCHIVE_SQL = {
  candidates: `SELECT owner, id, revision FROM sessions
    WHERE archived_at IS NULL AND entry_count > 0 AND modified_at < $1 ORDER BY modified_at`,
  archived: "SELECT owner, id FROM sessions WHERE archived_at IS NOT NULL ORDER BY owner, id",
  archiveOf: "SELECT archive_sha256, archived_at FROM sessions WHERE pk = $1",
  archiveSha: "SELECT archive_sha256 FROM sessions WHERE owner = $1 AND id = $2",
  dropEntries: "DELETE FROM entries WHERE session_pk = $1",
  dropOtherRefs: "DELETE FROM blob_refs WHERE session_pk = $1 AND sha256 <> $2",
  dropRef: "DELETE FROM blob_refs WHERE session_pk = $1 AND sha256 = $2",
  markArchived: "UPDATE sessions SET archived_at = $1, archive_sha256 = $2 WHERE pk = $3",
  markRestored: "UPDATE sessions SET archived_at = NULL, archive_sha256 = NULL WHERE pk = $1",
} as const;

export interface ArchiveReport {
  archived: Array<{ owner: string; sessionId: string; bytes: number }>;
}

/** Archives every session (of every owner, deleted or not) last modified before `olderThan`. */
export async function archiveSessions(
  p: SqlPayloads,
  store: SessionStore,
  olderThan: Date,
): Promise<ArchiveReport> {
  const rows = await p.runSql(function* (sql) {
    return yield* wait(
      sql.all<{ owner: string; id: string; revision: number }>(ARCHIVE_SQL.candidates, [
        olderThan.toISOString(),
      ]),
    );
  });
  const archived: ArchiveReport["archived"] = [];
  for (const row of rows) {
    const bytes = await archiveOne(p, store, row.owner, row.id, Number(row.revision));
    if (bytes !== null) archived.push({ owner: row.owner, sessionId: row.id, bytes });
  }
  return { archived };
}

/** Archives one session if it is still at `revision` (a write since wins); the object's size, or null. */
async function archiveOne(
  p: SqlPayloads,
  store: SessionStore,
  owner: string,
  sessionId: string,
  revision: number,
): Promise<number | null> {
  const { header, entries, summary } = await store.loadSession(owner, sessionId, { includeDeleted: true });
  if (summary.revision !== revision) return null;
  const object = gzipSync(exportSessionJsonl(header, entries, summary.leafId));
  const sha256 = sha256Hex(object);
  const archiveBatch = async (): Promise<PreparedBatch> => ({
    entries: [],
    claims: await p.claimAndUpload(owner, [{ sha256, bytes: object }]),
  });
  const hooks = { prepare: archiveBatch, isClaimLost: (error: unknown) => p.isClaimLost(error) };
  const done = await withPrepared(hooks, owner, [], (prepared) =>
    Promise.resolve(
      p.driver.writeSession({ owner, sessionId }, (tx) =>
        runFlow(archiveFlow(p, tx, revision, sha256, prepared)),
      ),
    ),
  );
  return done ? object.byteLength : null;
}

function* archiveFlow(
  p: SqlPayloads,
  tx: WriteTx<SessionRow>,
  revision: number,
  sha256: string,
  prepared: PreparedBatch,
): StoreFlow<boolean> {
  const found = yield* wait(tx.find());
  if (!found || found.summary.revision !== revision || found.summary.archivedAt) return false;
  const sql = tx.sql;
  if (!sql) throw new Error("Archive needs a SQL store");
  const pk = found.ref.pk;
  yield* p.confirmInWrite(tx, found.ref, prepared);
  yield* wait(sql.run(ARCHIVE_SQL.dropEntries, [pk]));
  yield* wait(sql.run(ARCHIVE_SQL.dropOtherRefs, [pk, sha256]));
  yield* wait(sql.run(ARCHIVE_SQL.markArchived, [new Date().toISOString(), sha256, pk]));
  return true;
}

/** Brings an archived session's entries back (a no-op when another call restored it first). */
export async function restoreArchived(p: SqlPayloads, owner: string, sessionId: string): Promise<void> {
  const [row] = await p.runSql(function* (sql) {
    return yield* wait(
      sql.all<{ archive_sha256: string | null }>(ARCHIVE_SQL.archiveSha, [owner, sessionId]),
    );
  });
  const sha256 = row?.archive_sha256;
  if (!sha256) return;
  const text = gunzipSync(await p.blobs.get(owner, sha256)).toString("utf8");
  const { entries } = parseImport(text);
  await withPrepared(p, owner, entries, (prepared) =>
    Promise.resolve(
      p.driver.writeSession({ owner, sessionId }, (tx) => runFlow(restoreFlow(p, tx, sha256, prepared))),
    ),
  );
}

function* restoreFlow(
  p: SqlPayloads,
  tx: WriteTx<SessionRow>,
  sha256: string,
  prepared: PreparedBatch,
): StoreFlow<void> {
  const found: FoundSession<SessionRow> | null = yield* wait(tx.find());
  const sql = tx.sql;
  if (!found || !sql) return;
  const pk = found.ref.pk;
  const [row] = yield* wait(sql.all<{ archive_sha256: string | null }>(ARCHIVE_SQL.archiveOf, [pk]));
  if (row?.archive_sha256 !== sha256) return; // restored meanwhile
  if (prepared.entries.length !== found.summary.entryCount) {
    throw new BlobError(
      "blob_corrupt",
      `The archive of session ${found.summary.id} holds ${prepared.entries.length} entries, the summary ${found.summary.entryCount}`,
    );
  }
  yield* p.confirmInWrite(tx, found.ref, prepared);
  yield* wait(tx.insertEntries(found.ref, prepared.entries, 0));
  yield* wait(sql.run(ARCHIVE_SQL.markRestored, [pk]));
  yield* wait(sql.run(ARCHIVE_SQL.dropRef, [pk, sha256]));
}

/** Restores every archived session (the operator's `archive --restore`); how many. */
export async function restoreAllArchived(p: SqlPayloads): Promise<number> {
  const rows = await p.runSql(function* (sql) {
    return yield* wait(sql.all<{ owner: string; id: string }>(ARCHIVE_SQL.archived, []));
  });
  for (const row of rows) await restoreArchived(p, row.owner, row.id);
  return rows.length;
}
