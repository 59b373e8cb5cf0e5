import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after } from "node:test";
import { FsBlobStore } from "../../../src/store/blob/fs-blob-store.js";
import { SqliteStore } from "../../../src/store/sqlite/index.js";
import { runConformance } from "../conformance/index.js";
import { offloadSpec } from "./offload-spec.js";

const dir = mkdtempSync(join(tmpdir(), "sessiontree-offload-"));

offloadSpec({
  name: "sqlite, blobs on the filesystem",
  async open() {
    const blobs = new FsBlobStore(join(dir, "blobs"));
    const store = new SqliteStore({ path: join(dir, "sessions.db"), blobs: { store: blobs, graceMs: 0 } });
    return { store, blobs };
  },
});
after(() => rmSync(dir, { recursive: true, force: true }));

// Every store rule holds with offload on (the suite's entries are small: they stay inline, but
// every write goes through the offload step and every read through the resolve step).
runConformance({
  name: "sqlite with a blob store",
  create: async () =>
    new SqliteStore({
      path: join(dir, "conformance.db"),
      blobs: { store: new FsBlobStore(join(dir, "conformance-blobs")), offload: { textBytes: 64 } },
    }),
  capabilities: { persistent: true },
});
