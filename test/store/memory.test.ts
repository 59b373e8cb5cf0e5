import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { MemoryStore } from "../../src/store/memory/memory-store.js";
import {
  openStore,
  registerStoreBackend,
  resolveStoreBackend,
  storeBackends,
} from "../../src/store/registry.js";
import { rejectsWith } from "./conformance/helpers.js";
import { runConformance } from "./conformance/index.js";

runConformance({
  name: "memory",
  create: async () => new MemoryStore(),
  capabilities: { persistent: false },
});

// The registry opens stores by location; here because it needs no server (and memory is its default).
describe("store backend registry", () => {
  const dir = mkdtempSync(join(tmpdir(), "sessiontree-registry-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("picks the backend by location", () => {
    const kindOf = (location: string) => resolveStoreBackend(location).kind;
    assert.equal(kindOf("memory:"), "memory");
    assert.equal(kindOf("jsonl:/var/lib/sessions"), "jsonl");
    assert.equal(kindOf("sqlite:data/s.db"), "sqlite");
    assert.equal(kindOf("data/sessions.sqlite3"), "sqlite");
    assert.equal(kindOf("postgres://u@h/db"), "postgres");
    assert.equal(kindOf("postgresql://u@h/db"), "postgres");
    assert.throws(() => resolveStoreBackend("mysql://x"), { code: "invalid_argument" });
    assert.deepEqual(
      storeBackends().map((b) => b.kind),
      ["memory", "jsonl", "sqlite", "postgres"],
    );
  });

  it("opens working stores, passing options to their backend", async () => {
    for (const location of ["memory:", `jsonl:${join(dir, "j")}`, `sqlite:${join(dir, "s.db")}`]) {
      const store = await openStore(location, {});
      await store.init();
      const { id } = await store.createSession("o");
      assert.equal((await store.getSummary("o", id)).revision, 1, location);
      await store.close();
    }
    await rejectsWith(openStore("ftp://nowhere"), "invalid_argument");
  });

  it("takes a backend of one's own, and refuses a kind twice", async () => {
    registerStoreBackend({
      kind: "test-mem",
      description: "a memory store under another name",
      locations: ["test-mem:"],
      accepts: (location) => location === "test-mem:",
      open: async () => new MemoryStore(),
    });
    assert.equal((await openStore("test-mem:")).kind, "memory");
    assert.throws(() => registerStoreBackend({ ...resolveStoreBackend("memory:") }), {
      code: "invalid_argument",
    });
  });
});
