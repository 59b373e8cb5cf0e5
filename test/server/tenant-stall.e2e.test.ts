// One tenant must not stall another (issue 16.1): user A loops GET …/tree on a 30,000-entry
// (about 10 MB) session while user B lists its sessions; B's p99 must stay far below what a
// whole-session read costs. The bound here is loose (CI machines are noisy); the 50 ms target is
// shown by `npm run bench:server` (bench/server-load.ts).
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { BACKENDS, freshPgDatabase } from "./helpers.js";
import {
  bigSessionJsonl,
  hammer,
  importSession,
  keyFor,
  measureSmallReads,
  type ServeTarget,
  serveChild,
} from "./tenant-load.js";

const ENTRIES = 30_000;
const jsonl = bigSessionJsonl(ENTRIES);

for (const backend of BACKENDS) {
  describe(`tenant stall (${backend})`, () => {
    const cleanups: Array<() => Promise<void> | void> = [];
    after(async () => {
      for (const cleanup of cleanups.reverse()) await cleanup();
    });

    it("keeps B's small reads fast while A loops the whole tree of a 30k-entry session", async () => {
      let target: ServeTarget;
      if (backend === "postgres") {
        const database = await freshPgDatabase();
        cleanups.push(() => database.drop());
        target = { database: database.url };
      } else {
        const dir = mkdtempSync(join(tmpdir(), "st-stall-"));
        cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
        target = { data: dir };
      }
      const keyA = await keyFor(target, "tenant-a");
      const keyB = await keyFor(target, "tenant-b");
      const server = await serveChild(target, ["--rate-limit", "0"]);
      cleanups.push(async () => void (await server.stop()));
      const sessionId = await importSession(server.url, keyA, jsonl);
      const tree = await fetch(`${server.url}/v1/sessions/${sessionId}/tree`, {
        headers: { authorization: `Bearer ${keyA}` },
      });
      const body = (await tree.json()) as { nodes: unknown[] };
      assert.equal(body.nodes.length, ENTRIES, "the whole tree is answered");

      const a = hammer(server.url, keyA, `/v1/sessions/${sessionId}/tree`, 4);
      await new Promise((resolve) => setTimeout(resolve, 500));
      const b = await measureSmallReads(server.url, keyB, 4000);
      const statuses = await a.stop();
      console.log(`${backend}: B ${JSON.stringify(b)}, A ${JSON.stringify(statuses)}`);
      assert.equal(b.failures, 0);
      assert.ok((statuses[200] ?? 0) >= 2, "A's whole-tree reads were answered meanwhile");
      assert.ok((statuses[429] ?? 0) > 0, "A's reads beyond the per-user cap were refused with 429");
      assert.ok(b.p99 < 500, `B's p99 ${b.p99} ms while A hammers`);
    });
  });
}
