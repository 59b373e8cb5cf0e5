// A child process of the SIGKILL test (blob-crash.e2e.test.ts), killed by its parent at a random
// moment. "append": appends entries with fresh images and big tool outputs to its session, forever.
// "collect": runs blob collections with no grace period, forever, racing the appenders.
//   node --import tsx blob-crash-worker.ts <append|collect> <db path> <blob root> owner [sessionId]
import { ClaimLostError } from "../../../src/store/blob/blob-claims.js";
import { FsBlobStore } from "../../../src/store/blob/fs-blob-store.js";
import { SqliteStore } from "../../../src/store/sqlite/index.js";
import { bigToolResult, userWithImage } from "./payload-entries.js";

const [mode, path, root, owner, sessionId] = process.argv.slice(2);
if (!path || !root || !owner) throw new Error("usage: mode dbPath blobRoot owner [sessionId]");
const store = new SqliteStore({
  path,
  busyTimeoutMs: 20_000,
  blobs: { store: new FsBlobStore(root), graceMs: 0 },
});
await store.init();
process.stdout.write("ready\n");

if (mode === "collect") {
  for (;;) await store.blobs?.collect();
}
if (!sessionId) throw new Error("append needs a session id");
for (let i = 0; ; i++) {
  const [leaf] = await store
    .readBranch(owner, sessionId, undefined, { references: true })
    .then((p) => p.slice(-1));
  const tag = `${process.pid}-${i}`;
  const image = userWithImage(`img-${tag}`, leaf?.id ?? null, 4096);
  try {
    await store.appendEntries(owner, sessionId, [image, bigToolResult(`out-${tag}`, image.id, 70_000)]);
  } catch (error) {
    // With no grace period the collector may win every retry of an append: that append fails whole.
    if (!(error instanceof ClaimLostError)) throw error;
  }
}
