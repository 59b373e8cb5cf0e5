// One tenant must not stall another (issue 16.1): user A loops each heavy read (GET …/tree,
// …/context, …/export, …/branch, …/stats, a 5,000-entry page) on a 30,000-entry (about 10 MB)
// session while user B lists its sessions. Two bounds: B's p99 in wall time, loose (a loaded 2-core
// machine stretches every request, B alone included), and the longest stretch the server's event
// loop ran without a turn, in main-thread CPU time (bench/loop-probe.ts), which waiting for a core
// does not stretch: the stats arithmetic or pi's context projection run on the event loop would
// break it (hundreds of ms on this session). The 50 ms target is shown by `npm run bench:stall`.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import { probeWindow } from "../../bench/tenant-stall.js";
import { BACKENDS, freshPgDatabase } from "./helpers.js";
import {
  bigSessionJsonl,
  hammerChild,
  importSession,
  keyFor,
  measureSmallReads,
  type ServeTarget,
  serveChild,
} from "./tenant-load.js";

const ENTRIES = 30_000;
const jsonl = bigSessionJsonl(ENTRIES);
/** Main-thread CPU ms the event loop may run without a turn: about 10-25 ms measured, at any load. */
const MAX_LOOP_STALL_CPU_MS = 60;

for (const backend of BACKENDS) {
  describe(`tenant stall (${backend})`, () => {
    const cleanups: Array<() => Promise<void> | void> = [];
    after(async () => {
      for (const cleanup of cleanups.reverse()) await cleanup();
    });

    let server: Awaited<ReturnType<typeof serveChild>>;
    let keyA: string;
    let keyB: string;
    let sessionId: string;
    let probeFile: string;

    it("serves the whole tree of a 30k-entry session", async () => {
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
      keyA = await keyFor(target, "tenant-a");
      keyB = await keyFor(target, "tenant-b");
      const probeDir = mkdtempSync(join(tmpdir(), "st-stall-probe-"));
      cleanups.push(() => rmSync(probeDir, { recursive: true, force: true }));
      probeFile = join(probeDir, "probe.json");
      const preload = [pathToFileURL(join(import.meta.dirname, "..", "..", "bench", "loop-probe.ts")).href];
      server = await serveChild(target, ["--rate-limit", "0"], {
        preload,
        env: { ST_LOOP_PROBE_FILE: probeFile },
      });
      cleanups.push(async () => void (await server.stop()));
      sessionId = await importSession(server.url, keyA, jsonl);
      const tree = await fetch(`${server.url}/v1/sessions/${sessionId}/tree`, {
        headers: { authorization: `Bearer ${keyA}` },
      });
      const body = (await tree.json()) as { nodes: unknown[] };
      assert.equal(body.nodes.length, ENTRIES, "the whole tree is answered");
    });

    for (const route of ["tree", "context", "export", "branch", "stats", "entries?limit=5000"]) {
      it(`keeps B's small reads fast while A loops GET …/${route}`, async () => {
        const path = `/v1/sessions/${sessionId}/${route}`;
        const a = await hammerChild(server.url, keyA, path, 4);
        await new Promise((resolve) => setTimeout(resolve, 500));
        const pid = server.child.pid as number;
        await probeWindow(pid, probeFile);
        const b = await measureSmallReads(server.url, keyB, 3000);
        const loop = await probeWindow(pid, probeFile);
        const statuses = await a.stop();
        const seen = `B ${JSON.stringify(b)}, A ${JSON.stringify(statuses)}, loop ${JSON.stringify(loop)}`;
        console.log(`${backend} ${route}: ${seen}`);
        assert.equal(b.failures, 0);
        assert.ok((statuses[200] ?? 0) >= 1, `A's ${route} reads were answered meanwhile`);
        // A page of entries is not a whole-session read: paging is what the cap tells a client to do.
        if (!route.startsWith("entries"))
          assert.ok((statuses[429] ?? 0) > 0, "A's reads beyond the per-user cap were refused with 429");
        // Far below the seconds one whole read in one stretch cost (3.6-7.8 s), above what a busy
        // machine adds to every request (B alone: p99 up to 300 ms at a load average of 24).
        assert.ok(b.p99 <= 1000, `B's p99 ${b.p99} ms while A hammers ${route}`);
        assert.ok(
          loop.cpu.max <= MAX_LOOP_STALL_CPU_MS,
          `the event loop ran ${loop.cpu.max} ms of CPU without a turn while A hammered ${route}`,
        );
      });
    }
  });
}
