import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
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

export interface S3BlobStoreOptions {
  bucket: string;
  /** Key prefix inside the bucket ("" for the whole bucket); a trailing "/" is added when missing. */
  prefix?: string;
  /** An S3-compatible endpoint (MinIO, Ceph, R2, a local test server); AWS when absent. */
  endpoint?: string;
  /** Path-style URLs (`endpoint/bucket/key`), which most S3-compatible servers need. */
  forcePathStyle?: boolean;
  /** @default AWS_REGION, else "us-east-1" (S3-compatible servers mostly ignore it) */
  region?: string;
  /**
   * How long one request may wait for an answer, in ms; past it the request fails (and the SDK
   * retries it, 3 attempts in all): a stalled object store fails the writes that need it instead
   * of holding them, and their session's queue, for ever. @default 30000
   */
  requestTimeoutMs?: number;
  /** A client of your own (credentials, retries, proxies); the options above are then ignored. */
  client?: S3Client;
}

const REQUEST_TIMEOUT_MS = 30_000;
const CONNECTION_TIMEOUT_MS = 5_000;

/**
 * Blobs as objects of an S3-compatible bucket: `<prefix><owner>/<ab>/<sha256>`. Credentials come
 * from the SDK's usual chain (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, profiles, roles).
 *
 * A put asks first whether the object exists (HEAD) and uploads only when it does not, or when its
 * size is not the blob's: no conditional write is needed, so servers that ignore `If-None-Match`
 * work too. Every get hashes
 * the bytes it received.
 */
export class S3BlobStore implements BlobStore {
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;

  constructor(options: S3BlobStoreOptions) {
    this.bucket = options.bucket;
    const prefix = options.prefix ?? "";
    this.prefix = prefix === "" || prefix.endsWith("/") ? prefix : `${prefix}/`;
    this.client =
      options.client ??
      new S3Client({
        region: options.region ?? process.env.AWS_REGION ?? "us-east-1",
        endpoint: options.endpoint,
        forcePathStyle: options.forcePathStyle,
        // Checksums only where the API demands them: S3-compatible servers differ in the newer
        // checksum headers, and each blob is checked by its own SHA-256 on read anyway.
        requestChecksumCalculation: "WHEN_REQUIRED",
        responseChecksumValidation: "WHEN_REQUIRED",
        requestHandler: {
          requestTimeout: options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS,
          // Without it the SDK only warns when the timeout passes, and the request waits on.
          throwOnRequestTimeout: true,
          connectionTimeout: Math.min(
            CONNECTION_TIMEOUT_MS,
            options.requestTimeoutMs ?? CONNECTION_TIMEOUT_MS,
          ),
        },
      });
  }

  async put(owner: string, bytes: Uint8Array): Promise<BlobRef> {
    const sha256 = sha256Hex(bytes);
    // An object of another size is damaged (a server that does not write atomically, a copy
    // tool): uploaded again, whole.
    if ((await this.head(owner, sha256))?.size !== bytes.byteLength) {
      await this.client.send(
        new PutObjectCommand({
          Bucket: this.bucket,
          Key: this.keyOf(owner, sha256),
          Body: bytes,
          ContentLength: bytes.byteLength,
          ContentType: "application/octet-stream",
        }),
      );
    }
    return { sha256, size: bytes.byteLength };
  }

  async get(owner: string, sha256: string): Promise<Uint8Array> {
    const key = this.keyOf(owner, checkHash(sha256));
    try {
      const reply = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      const bytes = await reply.Body?.transformToByteArray();
      return verified(owner, sha256, bytes ?? new Uint8Array());
    } catch (error) {
      if (isMissing(error)) throw new BlobError("blob_not_found", `No blob ${sha256}`);
      throw error;
    }
  }

  async has(owner: string, sha256: string): Promise<boolean> {
    return (await this.head(owner, sha256)) !== null;
  }

  /** The object as HEAD tells it (a server may leave its size out); null when there is none. */
  private async head(owner: string, sha256: string): Promise<{ size?: number } | null> {
    const key = this.keyOf(owner, checkHash(sha256));
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return { size: head.ContentLength };
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  async delete(owner: string, sha256: string): Promise<void> {
    const key = this.keyOf(owner, checkHash(sha256));
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  async *list(owner?: string): AsyncIterable<BlobInfo> {
    const prefix = owner === undefined ? this.prefix : `${this.prefix}${ownerSegment(owner)}/`;
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }),
      );
      for (const object of page.Contents ?? []) {
        const parsed = object.Key ? parseBlobPath(object.Key.slice(this.prefix.length)) : undefined;
        if (!parsed) continue; // objects of another tool sharing the prefix
        yield { ...parsed, size: object.Size ?? 0, modifiedAt: object.LastModified ?? new Date(0) };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async close(): Promise<void> {
    this.client.destroy();
  }

  private keyOf(owner: string, sha256: string): string {
    return `${this.prefix}${blobPath(owner, sha256)}`;
  }
}

/** A 404 from S3: `NoSuchKey` on GET, a bare `NotFound` on HEAD (which has no body). */
function isMissing(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === "NoSuchKey" || e.name === "NotFound" || e.$metadata?.httpStatusCode === 404;
}
