import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { writeAtomic } from "../../file/write-atomic.js";
import {
  BlobError,
  type BlobInfo,
  type BlobRef,
  type BlobStore,
  blobPath,
  checkHash,
  ownerSegment,
  parseBlobPath,
  sha256Hex,
  verified,
} from "./blob-store.js";

/**
 * Blobs as files under one folder (the embedded default, beside the database):
 * `<root>/<owner>/<ab>/<sha256>`. A blob is written to a temp file, flushed and renamed into place,
 * so a crash leaves the whole blob or none; files and folders are private to the user.
 */
export class FsBlobStore implements BlobStore {
  constructor(readonly root: string) {}

  async put(owner: string, bytes: Uint8Array): Promise<BlobRef> {
    const sha256 = sha256Hex(bytes);
    const path = this.pathOf(owner, sha256);
    // A blob of another size is damaged (cut short by a full disk, a copy): written again, whole.
    if (statSync(path, { throwIfNoEntry: false })?.size !== bytes.byteLength) {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      writeAtomic(path, Buffer.from(bytes), { mode: 0o600 });
    }
    return { sha256, size: bytes.byteLength };
  }

  async get(owner: string, sha256: string): Promise<Uint8Array> {
    const path = this.pathOf(owner, checkHash(sha256));
    let bytes: Buffer;
    try {
      bytes = readFileSync(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") throw missing(sha256);
      throw error;
    }
    return verified(owner, sha256, new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  }

  async has(owner: string, sha256: string): Promise<boolean> {
    return existsSync(this.pathOf(owner, checkHash(sha256)));
  }

  async delete(owner: string, sha256: string): Promise<void> {
    rmSync(this.pathOf(owner, checkHash(sha256)), { force: true });
  }

  async *list(owner?: string): AsyncIterable<BlobInfo> {
    const owners = owner === undefined ? childNames(this.root) : [ownerSegment(owner)];
    for (const segment of owners) {
      for (const fan of childNames(join(this.root, segment))) {
        for (const name of childNames(join(this.root, segment, fan))) {
          const parsed = parseBlobPath(`${segment}/${fan}/${name}`);
          if (!parsed) continue; // temp files of a write in progress, anything not ours
          const stat = statSync(join(this.root, segment, fan, name), { throwIfNoEntry: false });
          if (stat) yield { ...parsed, size: stat.size, modifiedAt: stat.mtime };
        }
      }
    }
  }

  async close(): Promise<void> {}

  private pathOf(owner: string, sha256: string): string {
    return join(this.root, ...blobPath(owner, sha256).split("/"));
  }
}

function missing(sha256: string): BlobError {
  return new BlobError("blob_not_found", `No blob ${sha256}`);
}

/** Names in a folder, sorted; none when the folder does not exist (yet). */
function childNames(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
}
