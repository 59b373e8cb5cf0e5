import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, it } from "node:test";
import { SqliteStore } from "../../src/store/sqlite/index.js";
import { twoWriters } from "./two-writers.js";

const dir = mkdtempSync(join(tmpdir(), "sessiontree-sqlite-mp-"));
after(() => rmSync(dir, { recursive: true, force: true }));

it("two processes appending to one SQLite session with expected revisions lose nothing", async () => {
  const path = join(dir, "shared.db");
  const store = new SqliteStore({ path });
  await store.init();
  try {
    const { acks, conflicts } = await twoWriters("sqlite", path, store, 150, 2);
    console.log(`# ${acks} acknowledged appends, ${conflicts} conflicts reported and retried`);
  } finally {
    await store.close();
  }
});

it("two processes appending under the leaf to one SQLite session form one chain, without conflicts", async () => {
  const path = join(dir, "under-leaf.db");
  const store = new SqliteStore({ path });
  await store.init();
  try {
    const { acks } = await twoWriters("sqlite", path, store, 150, 2, "under-leaf");
    console.log(`# ${acks} appends under the leaf, one chain`);
  } finally {
    await store.close();
  }
});
