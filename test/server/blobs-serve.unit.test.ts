import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { createApiKey, createServer, type ServerOptions } from "../../src/server/index.js";
import { S3BlobStore } from "../../src/store/blob/s3-blob-store.js";
import { freshBucket, S3_TEST_CREDENTIALS, s3Client, s3Endpoint } from "../store/blob/s3-bucket.js";
import { call } from "./helpers.js";

// The server opens its blob store from its own options, as `sessiontree serve` does: the embedded
// default beside the SQLite file, or the S3 location an operator names.

const image = randomBytes(800_000).toString("base64");
const drafts = [
  {
    type: "message",
    message: { role: "user", content: [{ type: "image", data: image, mimeType: "image/png" }], timestamp: 1 },
  },
];

/** Appends an image through the API and reads it back whole; returns the session id. */
async function roundTrip(options: ServerOptions): Promise<void> {
  const server = await createServer({ port: 0, rateLimit: false, accessLog: false, ...options });
  try {
    const { url } = await server.listen();
    const { key } = await createApiKey(server.services.db, "alice", "test");
    const created = await call(url, "POST", "/v1/sessions", { key, body: {} });
    const id = created.json.id as string;
    const appended = await call(url, "POST", `/v1/sessions/${id}/entries`, {
      key,
      body: { entries: drafts },
    });
    assert.equal(appended.status, 200, appended.text);
    const branch = await call(url, "GET", `/v1/sessions/${id}/branch`, { key });
    assert.ok(branch.text.includes(image), "the entry comes back whole");
  } finally {
    await server.close();
  }
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((name) =>
    statSync(join(dir, name)).isFile(),
  );
}

describe("the server's own blob store", () => {
  const dirs: string[] = [];
  const fresh = () => {
    const dir = mkdtempSync(join(tmpdir(), "st-serve-blobs-"));
    dirs.push(dir);
    return dir;
  };
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it("keeps payloads in <data>/blobs by default, and the database small", async () => {
    const data = fresh();
    await roundTrip({ data });
    assert.equal(filesUnder(join(data, "blobs")).length, 1, "one blob, the image");
    assert.ok(statSync(join(data, "sessiontree.db")).size < image.length, "the image is not in the database");
  });

  it("puts them in the bucket `blobs: s3://…` names", async () => {
    const data = fresh();
    const bucket = await freshBucket("serve");
    process.env.AWS_ACCESS_KEY_ID = S3_TEST_CREDENTIALS.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = S3_TEST_CREDENTIALS.secretAccessKey;
    await roundTrip({ data, blobs: `s3://${bucket}/tenants`, s3Endpoint: s3Endpoint() });
    assert.deepEqual(filesUnder(join(data, "blobs")), [], "nothing on the local disk");
    const inBucket = new S3BlobStore({ bucket, prefix: "tenants", client: s3Client() });
    try {
      let objects = 0;
      for await (const _ of inBucket.list("alice")) objects++;
      assert.equal(objects, 1);
    } finally {
      await inBucket.close();
    }
  });
});
