import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ValidationError } from "../../core/errors.js";
import type { BlobStore } from "./blob-store.js";
import { FsBlobStore } from "./fs-blob-store.js";

export interface OpenBlobStoreOptions {
  /** For `s3://`: an S3-compatible endpoint (`http://127.0.0.1:9000`); AWS when absent. */
  s3Endpoint?: string;
  /** For `s3://`: path-style URLs. @default true when an endpoint is given, else false */
  s3PathStyle?: boolean;
  s3Region?: string;
}

/**
 * A blob store from its location:
 * - `file:/var/lib/sessiontree/blobs` (or a plain path): files under that folder;
 * - `s3://bucket/prefix`: objects of an S3-compatible bucket (the AWS SDK is loaded only then).
 */
export async function openBlobStore(
  location: string,
  options: OpenBlobStoreOptions = {},
): Promise<BlobStore> {
  if (location.startsWith("s3://")) {
    const { bucket, prefix } = parseS3Location(location);
    const { S3BlobStore } = await import("./s3-blob-store.js");
    return new S3BlobStore({
      bucket,
      prefix,
      endpoint: options.s3Endpoint,
      forcePathStyle: options.s3PathStyle ?? options.s3Endpoint !== undefined,
      region: options.s3Region,
    });
  }
  if (location.startsWith("file://")) return new FsBlobStore(fileURLToPath(location));
  if (location.startsWith("file:")) return new FsBlobStore(resolve(location.slice("file:".length)));
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(location)) {
    throw new ValidationError(
      "invalid_argument",
      `Unknown blob store "${location}" (file:PATH or s3://BUCKET/PREFIX)`,
    );
  }
  return new FsBlobStore(resolve(location));
}

/** `s3://bucket/some/prefix` → bucket and prefix (without the leading slash). */
export function parseS3Location(location: string): { bucket: string; prefix: string } {
  const rest = location.slice("s3://".length);
  const slash = rest.indexOf("/");
  const bucket = slash < 0 ? rest : rest.slice(0, slash);
  const prefix = slash < 0 ? "" : rest.slice(slash + 1);
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
    throw new ValidationError("invalid_argument", `"${bucket}" is not an S3 bucket name (in ${location})`);
  }
  return { bucket, prefix };
}

/** The embedded default: blobs as files in `<data folder>/blobs`, beside the SQLite database. */
export function defaultBlobLocation(dataFolder: string): string {
  return `file:${resolve(dataFolder, "blobs")}`;
}
