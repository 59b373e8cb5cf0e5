import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, it } from "node:test";
import { fileURLToPath } from "node:url";
import { FsBlobStore } from "../../../src/store/blob/fs-blob-store.js";
import { refsOf } from "../../../src/store/blob/payload-refs.js";
import { SqliteStore } from "../../../src/store/sqlite/index.js";

const worker = fileURLToPath(new URL("./blob-crash-worker.ts", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "sessiontree-blob-crash-"));
after(() => rmSync(dir, { recursive: true, force: true }));

function start(args: string[]): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", worker, ...args], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    child.stdout?.once("data", () => resolve(child));
    child.once("exit", (code) => reject(new Error(`worker exited early (${code})`)));
  });
}

function killed(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGKILL");
  });
}

it("SIGKILLs of appenders and collections at any moment leave no dangling reference, and orphans are collected", async () => {
  const path = join(dir, "sessions.db");
  const root = join(dir, "blobs");
  const blobs = new FsBlobStore(root);
  // No lease either: once the workers are dead, a claim a killed collection left marked `deleting`
  // is taken over at once (a live store waits out the lease, 10 minutes, before it does).
  const store = new SqliteStore({ path, blobs: { store: blobs, graceMs: 0, leaseMs: 0 } });
  await store.init();
  const owner = "crash-owner";
  const { id } = await store.createSession(owner);

  for (let round = 0; round < 6; round++) {
    const children = await Promise.all([
      start(["append", path, root, owner, id]),
      start(["append", path, root, owner, id]),
      start(["collect", path, root, owner]),
    ]);
    await new Promise((resolve) => setTimeout(resolve, 150 + Math.random() * 600));
    for (const child of children.sort(() => Math.random() - 0.5)) await killed(child);
  }

  // Every stored reference resolves: no blob an entry names was deleted.
  const stored = (await store.loadSession(owner, id, { references: true })).entries;
  assert.ok(stored.length > 0, "the appenders wrote something before they were killed");
  const referenced = new Set(stored.flatMap(refsOf).map((ref) => ref.sha256));
  for (const sha256 of referenced) assert.ok(await blobs.has(owner, sha256), `dangling reference ${sha256}`);
  await store.readBranch(owner, id); // resolves (and verifies) every payload on the path

  // What the kills left unreferenced is collected; referenced blobs stay.
  await new Promise((resolve) => setTimeout(resolve, 1100)); // orphans are judged by their age
  await store.blobs?.collect();
  const listed = new Set<string>();
  for await (const blob of blobs.list(owner)) listed.add(blob.sha256);
  assert.deepEqual([...listed].sort(), [...referenced].sort());
  await store.close();
});
