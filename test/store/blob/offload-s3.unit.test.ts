import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { S3BlobStore } from "../../../src/store/blob/s3-blob-store.js";
import { PostgresStore } from "../../../src/store/postgres/index.js";
import { SqliteStore } from "../../../src/store/sqlite/index.js";
import { freshDatabase } from "../pg-database.js";
import { offloadSpec } from "./offload-spec.js";
import { freshBucket, s3Client } from "./s3-bucket.js";

// Both SQL stores with their blobs on a real S3-compatible server (s3rver, over loopback HTTP):
// every listing in these tests is the bucket's own.
const dir = mkdtempSync(join(tmpdir(), "sessiontree-offload-s3-"));
const database = await freshDatabase("offload");

offloadSpec({
  name: "sqlite, blobs on s3rver",
  async open() {
    const blobs = new S3BlobStore({
      bucket: await freshBucket("offload"),
      prefix: "blobs",
      client: s3Client(),
    });
    const store = new SqliteStore({ path: join(dir, "sessions.db"), blobs: { store: blobs, graceMs: 0 } });
    return { store, blobs };
  },
  async cleanup() {
    rmSync(dir, { recursive: true, force: true });
  },
});

offloadSpec({
  name: "postgres, blobs on s3rver",
  async open() {
    const blobs = new S3BlobStore({ bucket: await freshBucket("offload-pg"), client: s3Client() });
    const store = new PostgresStore({ connectionString: database.url, blobs: { store: blobs, graceMs: 0 } });
    return { store, blobs };
  },
  cleanup: () => database.drop(),
});
