import { randomBytes } from "node:crypto";
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";

/** s3rver's fixed credentials (scripts/s3.mjs). */
export const S3_TEST_CREDENTIALS = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };

/** The test S3 server's endpoint, from SESSIONTREE_TEST_S3_ENDPOINT (set by `npm test`); never skipped. */
export function s3Endpoint(): string {
  const endpoint = process.env.SESSIONTREE_TEST_S3_ENDPOINT;
  if (!endpoint) {
    throw new Error(
      "SESSIONTREE_TEST_S3_ENDPOINT is not set: run `npm test`, or start `node scripts/s3.mjs` and export its endpoint",
    );
  }
  return endpoint;
}

/** A client of the test server, as an operator would configure one (path-style, explicit endpoint). */
export function s3Client(): S3Client {
  return new S3Client({
    region: "us-east-1",
    endpoint: s3Endpoint(),
    forcePathStyle: true,
    credentials: S3_TEST_CREDENTIALS,
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });
}

/** A new, empty bucket on the test server for one test file. */
export async function freshBucket(label: string): Promise<string> {
  const bucket = `sessiontree-${label}-${randomBytes(5).toString("hex")}`;
  const client = s3Client();
  try {
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
  } finally {
    client.destroy();
  }
  return bucket;
}
