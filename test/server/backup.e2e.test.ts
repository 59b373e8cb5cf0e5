import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { runBackup, runRestore } from "../../src/cli/commands/backup-run.js";
import { createApiKey, openBackends, openServiceDb } from "../../src/server/index.js";
import { startServeChild } from "../support/serve-child.js";
import { call, quietly, userMessage } from "./helpers.js";

const _CHILD = new URL("./cli-child.ts", import.meta.url).pathname;

/** `sessiontree serve` in a process of its own: the writer the backup runs beside. */
const serve = (data: string) => startServeChild(["--data", data, "--rate-limit", "0", "--no-access-log"]);

describe("sessiontree backup / restore (issue 16.15)", () => {
  const dir = mkdtempSync(join(tmpdir(), "st-backup-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("restores a backup taken while a writer appends, with every write acknowledged before it", async () => {
    const data = join(dir, "live");
    const db = await openServiceDb({ data });
    const { key } = await createApiKey(db, "writer", "t");
    await db.close();
    const server = await serve(data);
    const acked: string[] = [];
    let writing = true;
    try {
      const session = await call(server.url, "POST", "/v1/sessions", { key, body: { cwd: "/w" } });
      const path = `/v1/sessions/${session.json.id}/entries`;
      // Enough pages that the copy takes several steps while the writer goes on.
      for (let batch = 0; batch < 15; batch++) {
        const entries = Array.from({ length: 100 }, (_, i) =>
          userMessage(`bulk ${batch}.${i} ${"x".repeat(400)}`),
        );
        const r = await call(server.url, "POST", path, { key, body: { entries } });
        assert.equal(r.status, 200);
        acked.push(...r.json.appended);
      }
      const writer = (async () => {
        for (let i = 0; writing; i++) {
          const r = await call(server.url, "POST", path, {
            key,
            body: { entries: [userMessage(`live ${i}`)] },
          });
          assert.equal(r.status, 200, r.text);
          acked.push(...r.json.appended);
        }
      })();
      while (acked.length < 1550) await new Promise((resolve) => setTimeout(resolve, 5));
      const before = [...acked];
      const to = join(dir, "snapshot.db");
      const printed = JSON.parse(await quietly(() => runBackup({ data, to, json: true })));
      const during = acked.length - before.length;
      writing = false;
      await writer;
      assert.ok(printed.entries >= before.length, JSON.stringify(printed));

      const restoredData = join(dir, "restored");
      await quietly(() => runRestore({ data: restoredData, from: to }));
      const restored = await openBackends({ data: restoredData });
      try {
        const ids = new Set(
          (await restored.store.loadSession("writer", session.json.id)).entries.map((e) => e.id),
        );
        const missing = before.filter((id) => !ids.has(id));
        assert.deepEqual(missing, [], "every write acknowledged before the backup is in it");
        // What the copy holds is a prefix of the writes: no hole, nothing torn.
        const held = acked.filter((id) => ids.has(id));
        assert.deepEqual(held, acked.slice(0, held.length));
        assert.ok(during > 0, "the writer appended while the backup ran");
        assert.ok(
          (await restored.db.findKey(/^st_([0-9a-f]{12})_/.exec(key)?.[1] ?? "")) !== undefined,
          "keys too",
        );
      } finally {
        await restored.db.close();
        await restored.store.close();
        await restored.close?.();
      }
    } finally {
      writing = false;
      await server.stop();
    }
  });

  it("never overwrites: a backup onto an existing file and a restore onto a database without --force are refused", async () => {
    const data = join(dir, "live");
    const to = join(dir, "snapshot.db");
    await assert.rejects(
      quietly(() => runBackup({ data, to })),
      /exists/,
    );
    await assert.rejects(
      quietly(() => runRestore({ data, from: to })),
      /exists/,
    );
    const printed = JSON.parse(await quietly(() => runRestore({ data, from: to, force: true, json: true })));
    assert.ok(printed.keptAs && existsSync(printed.keptAs), "the replaced database is kept aside");
  });

  it("for PostgreSQL, prints how to use pg_dump and writes nothing", async () => {
    const errors: string[] = [];
    const error = console.error;
    console.error = (...parts: unknown[]) => errors.push(parts.join(" "));
    const to = join(dir, "pg.dump");
    try {
      await assert.rejects(
        quietly(() => runBackup({ data: dir, database: "postgres://u:secret@db/st", to })),
        /exit code 2/,
      );
    } finally {
      console.error = error;
    }
    assert.match(errors.join("\n"), /pg_dump --format=custom/);
    assert.doesNotMatch(errors.join("\n"), /secret/, "the password is not printed");
    assert.equal(existsSync(to), false);
  });
});
