import assert from "node:assert/strict";
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { createApiKey, createServer, type SessionTreeServer } from "../../src/server/index.js";
import type { BlobStore } from "../../src/store/blob/blob-store.js";
import { S3BlobStore } from "../../src/store/blob/s3-blob-store.js";
import { SqliteStore } from "../../src/store/sqlite/index.js";
import { freshBucket, s3Client } from "../store/blob/s3-bucket.js";
import { type CallOptions, call } from "./helpers.js";

// The service with its payloads on a real S3-compatible server (s3rver, loopback HTTP): every route
// that reads or writes entries gives them whole, exports stay self-contained, and another user's
// blob hash answers exactly as a hash nobody has.
describe("the service with blobs on s3rver", () => {
  const dir = mkdtempSync(join(tmpdir(), "st-server-blobs-"));
  let server: SessionTreeServer;
  let blobs: BlobStore;
  let url = "";
  const keys: Record<string, string> = {};
  const as = (user: string, method: string, path: string, options: CallOptions = {}) =>
    call(url, method, path, { ...options, key: keys[user] });

  before(async () => {
    blobs = new S3BlobStore({
      bucket: await freshBucket("server"),
      prefix: "sessiontree",
      client: s3Client(),
    });
    const store = new SqliteStore({ path: join(dir, "sessiontree.db"), blobs: { store: blobs, graceMs: 0 } });
    await store.init();
    server = await createServer({ port: 0, rateLimit: false, data: dir, store });
    ({ url } = await server.listen());
    for (const user of ["alice", "bob"])
      keys[user] = (await createApiKey(server.services.db, user, "test")).key;
  });
  after(async () => {
    const store = server.services.store;
    await server.close();
    await store.close();
    await blobs.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const image = randomBytes(50_000).toString("base64");
  const output = "x".repeat(100_000);
  const drafts = [
    {
      type: "message",
      message: {
        role: "user",
        content: [{ type: "image", data: image, mimeType: "image/png" }],
        timestamp: 1,
      },
    },
    {
      type: "message",
      message: {
        role: "toolResult",
        toolCallId: "c1",
        toolName: "bash",
        content: [{ type: "text", text: output }],
        isError: false,
        timestamp: 2,
      },
    },
  ];

  it("stores payloads in the bucket and gives them back whole through every read route", async () => {
    const created = await as("alice", "POST", "/v1/sessions", { body: {} });
    assert.equal(created.status, 201);
    const id = created.json.id as string;
    const appended = await as("alice", "POST", `/v1/sessions/${id}/entries`, { body: { entries: drafts } });
    assert.equal(appended.status, 200, appended.text);
    let objects = 0;
    for await (const _ of blobs.list("alice")) objects++;
    assert.equal(objects, 2);

    const branch = await as("alice", "GET", `/v1/sessions/${id}/branch`);
    assert.equal(branch.status, 200);
    assert.ok(branch.text.includes(image) && branch.text.includes(output));
    const entries = await as("alice", "GET", `/v1/sessions/${id}/entries`);
    assert.ok(entries.text.includes(image) && entries.text.includes(output));
    const exported = await as("alice", "GET", `/v1/sessions/${id}/export`);
    assert.ok(exported.text.includes(image) && !exported.text.includes('"blob"'));

    // An import of the export (a fork) shares the blobs: nothing new in the bucket.
    const imported = await as("alice", "POST", "/v1/sessions/import", {
      raw: exported.text,
      headers: { "content-type": "application/x-ndjson" },
    });
    assert.equal(imported.status, 201, imported.text);
    objects = 0;
    for await (const _ of blobs.list("alice")) objects++;
    assert.equal(objects, 2);

    // Purging both leaves the bucket empty for alice.
    for (const sessionId of [id, imported.json.id as string]) {
      assert.equal((await as("alice", "POST", `/v1/sessions/${sessionId}/purge`)).status, 204);
    }
    objects = 0;
    for await (const _ of blobs.list("alice")) objects++;
    assert.equal(objects, 0);
  });

  it("answers another user's blob hash exactly like a hash nobody has", async () => {
    const mine = await as("alice", "POST", "/v1/sessions", { body: {} });
    await as("alice", "POST", `/v1/sessions/${mine.json.id}/entries`, {
      body: { entries: drafts.slice(0, 1) },
    });
    let hash = "";
    for await (const blob of blobs.list("alice")) hash = blob.sha256;
    const theirs = await as("bob", "POST", "/v1/sessions", { body: {} });
    const reference = (sha256: string) => ({
      entries: [
        {
          type: "message",
          message: {
            role: "user",
            content: [{ type: "image", mimeType: "image/png", blob: { sha256, size: 1 } }],
            timestamp: 3,
          },
        },
      ],
    });
    const stolen = await as("bob", "POST", `/v1/sessions/${theirs.json.id}/entries`, {
      body: reference(hash),
    });
    const nobody = "f".repeat(64);
    const missing = await as("bob", "POST", `/v1/sessions/${theirs.json.id}/entries`, {
      body: reference(nobody),
    });
    assert.equal(stolen.status, missing.status);
    assert.equal(stolen.json.error?.code ?? stolen.json.code, missing.json.error?.code ?? missing.json.code);
    assert.equal(stolen.text.replace(hash, "#"), missing.text.replace(nobody, "#"));
    assert.equal((await as("bob", "GET", `/v1/sessions/${mine.json.id}/branch`)).status, 404);

    // The same through an import: a pi file naming alice's hash is refused like one naming nobody's.
    const importing = (sha256: string) => {
      const header = {
        type: "session",
        version: 3,
        id: randomUUID(),
        timestamp: "2026-01-01T00:00:00.000Z",
        cwd: "/w",
      };
      const entry = {
        ...reference(sha256).entries[0],
        id: "e1",
        parentId: null,
        timestamp: header.timestamp,
      };
      return as("bob", "POST", "/v1/sessions/import", {
        raw: `${JSON.stringify(header)}\n${JSON.stringify(entry)}\n`,
        headers: { "content-type": "application/x-ndjson" },
      });
    };
    const [stolenImport, missingImport] = [await importing(hash), await importing(nobody)];
    assert.equal(stolenImport.status, 400, stolenImport.text);
    assert.match(stolenImport.text, /invalid_entry/);
    assert.match(stolenImport.text, /blob/i);
    assert.equal(stolenImport.status, missingImport.status);
    assert.equal(stolenImport.text.replace(hash, "#"), missingImport.text.replace(nobody, "#"));
  });
});
