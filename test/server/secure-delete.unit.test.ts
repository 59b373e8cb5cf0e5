import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import Database from "better-sqlite3";
import { createApiKey, createServer, type SessionTreeServer } from "../../src/server/index.js";
import { call, userMessage } from "./helpers.js";

/** Whether any of the database's files still hold `text`, byte for byte. */
function filesHold(dbFile: string, text: string): string[] {
  const needle = Buffer.from(text, "utf8");
  return [dbFile, `${dbFile}-wal`].filter((file) => existsSync(file) && readFileSync(file).includes(needle));
}

/** A hard purge leaves nothing to recover from the SQLite file or its WAL: issue 16, defect 5. */
describe("purged text is gone from the SQLite files", () => {
  let dir: string;
  let server: SessionTreeServer;
  let url: string;
  let key: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "st-secure-delete-"));
    server = await createServer({ data: dir, port: 0, rateLimit: false });
    url = (await server.listen()).url;
    key = (await createApiKey(server.services.db, "erin", "t")).key;
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("keeps no copy of a purged session's name, messages or remembered responses", async () => {
    const marker = `zq-secret-${Date.now()}-marker`;
    const dbFile = join(dir, "sessiontree.db");
    const created = await call(url, "POST", "/v1/sessions", {
      key,
      body: { name: marker, cwd: `/home/${marker}` },
      headers: { "idempotency-key": `k-${marker}` },
    });
    const id = created.json.id;
    for (let i = 0; i < 20; i++) {
      const body = { entries: [userMessage(`${marker} message ${i} ${"filler ".repeat(200)}`)] };
      const headers = { "idempotency-key": `a${i}-${marker}` };
      assert.equal(
        (await call(url, "POST", `/v1/sessions/${id}/entries`, { key, body, headers })).status,
        200,
      );
    }
    assert.ok(filesHold(dbFile, marker).length > 0, "the marker was written");

    assert.equal((await call(url, "POST", `/v1/sessions/${id}/purge`, { key })).status, 204);
    // Another connection checkpoints too, as any reader or the next start would.
    const other = new Database(dbFile);
    other.pragma("wal_checkpoint(TRUNCATE)");
    other.close();
    assert.deepEqual(filesHold(dbFile, marker), [], "no page of the file or the WAL holds the marker");
    await server.close();
    assert.deepEqual(filesHold(dbFile, marker), [], "nor after the server closed");
  });
});
