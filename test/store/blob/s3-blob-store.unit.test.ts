import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ListObjectsV2Command, PutObjectCommand } from "@aws-sdk/client-s3";
import { blobPath, ownerSegment } from "../../../src/store/blob/blob-store.js";
import { openBlobStore, parseS3Location } from "../../../src/store/blob/open-blob-store.js";
import { S3BlobStore } from "../../../src/store/blob/s3-blob-store.js";
import { blobSpec, newOwner } from "./blob-spec.js";
import { freshBucket, S3_TEST_CREDENTIALS, s3Client, s3Endpoint } from "./s3-bucket.js";

// A real S3-compatible server (s3rver, started by `npm test` in its own process) over loopback
// HTTP: the SDK signs, sends and parses as it would against AWS.
describe("blob store: S3-compatible object storage (s3rver)", () => {
  const client = s3Client();
  let bucket = "";
  let store: S3BlobStore;
  const prefix = "tenants/blobs";

  before(async () => {
    bucket = await freshBucket("blobs");
    store = new S3BlobStore({ bucket, prefix, client: s3Client() });
  });
  after(async () => {
    await store.close();
    client.destroy();
  });

  const put = (key: string, body: Uint8Array | string) =>
    client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));

  blobSpec({
    store: () => store,
    tamper: async (owner, sha256, bytes) => {
      await put(`${prefix}/${blobPath(owner, sha256)}`, bytes);
    },
    litter: async (owner, name) => {
      await put(`${prefix}/${ownerSegment(owner)}/ab/${name}`, "another tool's object");
    },
  });

  it("stays under its prefix: another prefix in the same bucket is another store", async () => {
    const other = new S3BlobStore({ bucket, prefix: "elsewhere/", client: s3Client() });
    const owner = newOwner();
    const { sha256 } = await store.put(owner, Buffer.from("under the prefix"));
    assert.equal(await other.has(owner, sha256), false);
    const listed = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: `${prefix}/` }));
    assert.ok(listed.Contents?.some((object) => object.Key === `${prefix}/${blobPath(owner, sha256)}`));
    await other.close();
  });

  it("opens from an s3:// location with an endpoint, credentials from the AWS environment", async () => {
    const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
    process.env.AWS_ACCESS_KEY_ID = S3_TEST_CREDENTIALS.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = S3_TEST_CREDENTIALS.secretAccessKey;
    try {
      const opened = await openBlobStore(`s3://${bucket}/${prefix}`, { s3Endpoint: s3Endpoint() });
      const owner = newOwner();
      const { sha256 } = await opened.put(owner, Buffer.from("through the location"));
      assert.equal(await store.has(owner, sha256), true, "the same bucket and prefix");
      await opened.close();
    } finally {
      process.env.AWS_ACCESS_KEY_ID = saved.id;
      process.env.AWS_SECRET_ACCESS_KEY = saved.secret;
      if (saved.id === undefined) delete process.env.AWS_ACCESS_KEY_ID;
      if (saved.secret === undefined) delete process.env.AWS_SECRET_ACCESS_KEY;
    }
  });

  it("parses s3:// locations and refuses a bad bucket name", () => {
    assert.deepEqual(parseS3Location("s3://my-bucket/a/b"), { bucket: "my-bucket", prefix: "a/b" });
    assert.deepEqual(parseS3Location("s3://my-bucket"), { bucket: "my-bucket", prefix: "" });
    assert.throws(() => parseS3Location("s3://My_Bucket/x"), { code: "invalid_argument" });
  });
});
