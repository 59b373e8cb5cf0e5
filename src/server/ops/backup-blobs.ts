import { existsSync, mkdirSync } from "node:fs";
import Database from "better-sqlite3";
import { isSessionTreeError } from "../../core/errors.js";
import { BlobError, type BlobStore } from "../../store/blob/blob-store.js";
import { FsBlobStore } from "../../store/blob/fs-blob-store.js";
import { openBlobStore } from "../../store/blob/open-blob-store.js";

/**
 * The payloads a SQLite database keeps out of line (images, text parts over 64 KiB, sessions moved
 * there by `archive`), as `backup` and `restore` carry them: files in a folder beside the backup
 * file, `<backup>.blobs`, laid out as the server's own file blob store. Blobs in object storage
 * (`s3://…`) are not copied: the bucket is the operator's to back up, and to restore first.
 */
export interface BlobsReport {
  /** The blobs the database refers to. */
  referenced: number;
  /** Where the server keeps them: `file:…` or `s3://…`. */
  location: string;
  /** The folder beside the backup file they were copied to (backup) or from (restore); null: none. */
  folder: string | null;
  /** They live in object storage, which backup and restore leave alone. */
  inObjectStorage: boolean;
}

interface BlobRef {
  owner: string;
  sha256: string;
}

/** The folder of a backup file's blobs. */
export function blobFolderOf(backupFile: string): string {
  return `${backupFile}.blobs`;
}

/** A location backup and restore do not copy: the bucket has backups of its own (versioning, replication). */
function inObjectStorage(location: string): boolean {
  return /^s3:\/\//i.test(location);
}

/**
 * Every blob a database file refers to, as the blob collection counts references (blob_refs, of
 * live, soft-deleted and archived sessions alike: store/blob/blob-gc.ts). None before the store's
 * blob tables existed.
 */
export function referencedBlobs(file: string): BlobRef[] {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const hasRefs = db
      .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'blob_refs'")
      .get();
    if (!hasRefs) return [];
    return db
      .prepare(
        `SELECT DISTINCT s.owner AS owner, r.sha256 AS sha256
         FROM blob_refs r JOIN sessions s ON s.pk = r.session_pk ORDER BY s.owner, r.sha256`,
      )
      .all() as BlobRef[];
  } finally {
    db.close();
  }
}

/**
 * Copies the blobs a database snapshot refers to from the live store at `location` into `folder`
 * (made here, private to the user like the store's own). None from object storage (folder null).
 * Throws `blob_not_found` when one is gone from the live store: see `isGoneSinceSnapshot`.
 */
export async function copySnapshotBlobs(
  snapshot: string,
  location: string,
  folder: string,
): Promise<BlobsReport> {
  const refs = referencedBlobs(snapshot);
  const report = { referenced: refs.length, location };
  if (inObjectStorage(location)) return { ...report, folder: null, inObjectStorage: true };
  mkdirSync(folder, { mode: 0o700 });
  const source = await openBlobStore(location);
  try {
    await copyEach(refs, { store: source, name: location }, new FsBlobStore(folder));
  } finally {
    await source.close();
  }
  return { ...report, folder, inObjectStorage: false };
}

/**
 * A referenced blob missing from the live store after the snapshot. Blobs are immutable and a
 * collection deletes only those no session of the *live* database refers to; but a session in the
 * snapshot may have been purged since (retention, `purge-deleted`), and the purge collects its
 * owner's blobs at once. The snapshot is then taken again. (A blob missing before the snapshot
 * goes on missing: after a few snapshots the backup is refused, naming it.)
 */
export function isGoneSinceSnapshot(error: unknown): boolean {
  return isSessionTreeError(error, "blob_not_found");
}

/**
 * Puts a backup's blobs into the blob store at `location` (those already there are left as they
 * are: content-addressed, the same name is the same bytes), then checks that every blob the backup
 * refers to is there; refuses with `blob_not_found` otherwise, before the database is replaced.
 */
export async function restoreBlobs(backup: string, location: string): Promise<BlobsReport> {
  const refs = referencedBlobs(backup);
  const folder = existsSync(blobFolderOf(backup)) ? blobFolderOf(backup) : null;
  const report = { referenced: refs.length, location, folder };
  if (inObjectStorage(location)) return { ...report, inObjectStorage: true };
  const target = await openBlobStore(location);
  try {
    if (folder) await copyAll(folder, target);
    const where = folder
      ? `neither in ${folder} nor in ${location}`
      : `not in ${location} (and no ${blobFolderOf(backup)})`;
    await requireAll(refs, target, where);
  } finally {
    await target.close();
  }
  return { ...report, inObjectStorage: false };
}

/** Each blob read (and checked against its hash) from `source` and written to `target`, unless there. */
async function copyEach(
  refs: readonly BlobRef[],
  source: { store: BlobStore; name: string },
  target: BlobStore,
): Promise<void> {
  for (const { owner, sha256 } of refs) {
    if (await target.has(owner, sha256)) continue;
    const bytes = await source.store.get(owner, sha256).catch((error: unknown) => {
      if (!isSessionTreeError(error, "blob_not_found")) throw error;
      // The store's own message names the hash only: say whose blob, and where it was looked for.
      throw new BlobError(
        "blob_not_found",
        `Blob ${sha256} of ${JSON.stringify(owner)}, which the database refers to, is not in ${source.name}`,
        { cause: error, details: { owner, sha256 } },
      );
    });
    await target.put(owner, bytes);
  }
}

async function copyAll(folder: string, target: BlobStore): Promise<void> {
  const source = new FsBlobStore(folder);
  const all: BlobRef[] = [];
  for await (const { owner, sha256 } of source.list()) all.push({ owner, sha256 });
  await copyEach(all, { store: source, name: folder }, target);
}

async function requireAll(refs: readonly BlobRef[], store: BlobStore, where: string): Promise<void> {
  const missing: BlobRef[] = [];
  for (const ref of refs) if (!(await store.has(ref.owner, ref.sha256))) missing.push(ref);
  const [first] = missing;
  if (!first) return;
  throw new BlobError(
    "blob_not_found",
    `The backup refers to ${missing.length} payload(s) kept out of line that are ${where} (the first: blob ${first.sha256} of ${JSON.stringify(first.owner)}); nothing was restored`,
    { details: { missing: missing.length, sha256: first.sha256 } },
  );
}
