import assert from "node:assert/strict";
import { createServer, type Socket } from "node:net";
import { after, before, describe, it } from "node:test";
import { S3BlobStore } from "../../../src/store/blob/s3-blob-store.js";

// An object store that takes the connection and never answers (a stalled S3 or proxy): a put fails
// within its request timeout (and the SDK's retries) instead of holding the write for ever.
describe("blob store: a stalled S3-compatible server", () => {
  const sockets: Socket[] = [];
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.on("data", () => {}); // read the request, answer nothing
  });
  let endpoint = "";
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address() as { port: number };
    endpoint = `http://127.0.0.1:${address.port}`;
  });
  after(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it("fails a put within its request timeout, retries included", async () => {
    process.env.AWS_ACCESS_KEY_ID ??= "test";
    process.env.AWS_SECRET_ACCESS_KEY ??= "test";
    const store = new S3BlobStore({
      bucket: "stalled",
      endpoint,
      forcePathStyle: true,
      requestTimeoutMs: 200,
    });
    const started = Date.now();
    await assert.rejects(store.put("alice", new TextEncoder().encode("payload")));
    const took = Date.now() - started;
    // 3 attempts of 200 ms plus the SDK's backoff between them: seconds, not for ever.
    assert.ok(took < 10_000, `failed after ${took} ms`);
    await store.close();
  });
});
