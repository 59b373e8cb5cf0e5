import { createHash } from "node:crypto";
import { type ErrorOptions, SessionTreeError } from "../../core/errors.js";

/**
 * Content-addressed storage for large payloads (images, long tool outputs) kept out of the session's
 * rows. A blob is named by the SHA-256 of its bytes *within one owner's namespace*: two users who
 * store the same file get two blobs, so no one can learn from a cheap put that another user holds a
 * file. Blobs are written once (a second put of the same bytes changes nothing) and verified on
 * every read: a hash mismatch is an error, never wrong bytes.
 *
 * Backends (`fs-blob-store.ts`, `s3-blob-store.ts`) share one conformance suite
 * (test/store/blob/). Nothing here relies on conditional writes: some S3-compatible servers ignore
 * `If-None-Match`, and content addressing makes a repeated write harmless anyway.
 */
export interface BlobStore {
  /** Stores `bytes` under the owner (a no-op when that blob exists) and says how to find them. */
  put(owner: string, bytes: Uint8Array): Promise<BlobRef>;
  /** The bytes, checked against their hash. Throws `blob_not_found` or `blob_corrupt`. */
  get(owner: string, sha256: string): Promise<Uint8Array>;
  has(owner: string, sha256: string): Promise<boolean>;
  /** Removes the blob; removing a missing blob is not an error (a sweep may run twice). */
  delete(owner: string, sha256: string): Promise<void>;
  /** Every blob of one owner, or of all owners: what a garbage collection sweeps over. */
  list(owner?: string): AsyncIterable<BlobInfo>;
  close(): Promise<void>;
}

/** Where a blob is: enough to fetch and check it. */
export interface BlobRef {
  sha256: string;
  size: number;
}

export interface BlobInfo extends BlobRef {
  owner: string;
  /** When the backend last wrote it: a sweep leaves recent blobs alone (an append may be in flight). */
  modifiedAt: Date;
}

export type BlobErrorCode = "blob_not_found" | "blob_corrupt";

/** A blob that is missing (or belongs to another owner: the two answer alike), or whose bytes changed. */
export class BlobError extends SessionTreeError {
  constructor(code: BlobErrorCode, message: string, options?: ErrorOptions) {
    super(code, message, options);
  }
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

export function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/**
 * Refuses anything but a lowercase hex SHA-256, before it becomes part of a path or an object key
 * (`../`, another owner's folder). A malformed hash cannot name a blob: it answers as a missing one.
 */
export function checkHash(sha256: string): string {
  if (!SHA256_HEX.test(sha256)) throw new BlobError("blob_not_found", `No blob ${JSON.stringify(sha256)}`);
  return sha256;
}

/** The bytes if they match their name; a `blob_corrupt` error otherwise. */
export function verified(owner: string, sha256: string, bytes: Uint8Array): Uint8Array {
  const actual = sha256Hex(bytes);
  if (actual !== sha256) {
    throw new BlobError("blob_corrupt", `Blob ${sha256} no longer matches its hash (read ${actual})`, {
      details: { owner, sha256, actual },
    });
  }
  return bytes;
}

/**
 * An owner id as one path segment or key part: base64url of its UTF-8, so any id (slashes, dots,
 * unicode) is safe and two ids never share a folder. Prefixed so an empty id still has a name.
 */
export function ownerSegment(owner: string): string {
  return `o-${Buffer.from(owner, "utf8").toString("base64url")}`;
}

/** The owner id back from its segment; undefined for a name this store did not write. */
export function ownerFromSegment(segment: string): string | undefined {
  if (!segment.startsWith("o-")) return undefined;
  const owner = Buffer.from(segment.slice(2), "base64url").toString("utf8");
  return ownerSegment(owner) === segment ? owner : undefined;
}

/** `<owner>/<first two hex digits>/<hash>`: fans blobs out so no folder or listing page grows huge. */
export function blobPath(owner: string, sha256: string): string {
  return `${ownerSegment(owner)}/${sha256.slice(0, 2)}/${sha256}`;
}

/** The owner and hash of a blob path relative to the store's root; undefined for anything else. */
export function parseBlobPath(path: string): { owner: string; sha256: string } | undefined {
  const [segment, fan, sha256, ...rest] = path.split("/");
  if (rest.length > 0 || !segment || !sha256 || !SHA256_HEX.test(sha256) || fan !== sha256.slice(0, 2))
    return undefined;
  const owner = ownerFromSegment(segment);
  return owner === undefined ? undefined : { owner, sha256 };
}
