import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Command } from "commander";
import { register } from "../../src/cli/commands/keys.js";
import { registerPurge } from "../../src/cli/commands/serve.js";
import { openBackends, openServiceDb } from "../../src/server/index.js";
import { startServeChild } from "../support/serve-child.js";
import { call, freshPgDatabase } from "./helpers.js";

const _CHILD = join(import.meta.dirname, "cli-child.ts");

/**
 * Runs `sessiontree keys …` in this process (fast), returning what it printed. The program has the
 * real one's global `--json`, which commander hands to the program even after the subcommand.
 */
async function cli(...args: string[]): Promise<string> {
  const program = new Command("sessiontree").option("--json", "machine-readable output").exitOverride();
  register(program);
  const printed: string[] = [];
  const log = console.log;
  const exitCode = process.exitCode;
  console.log = (...parts: unknown[]) => printed.push(parts.join(" "));
  const error = console.error;
  console.error = () => {};
  // The test runner sets exitCode once any test failed: only what this command sets counts here.
  process.exitCode = undefined;
  try {
    await program.parseAsync(["node", "sessiontree", ...args]);
    if (process.exitCode) throw new Error(`exit code ${process.exitCode}`);
  } finally {
    console.log = log;
    console.error = error;
    process.exitCode = exitCode;
  }
  return printed.join("\n");
}

const serve = (...args: string[]) => startServeChild(["--no-access-log", ...args]);

describe("sessiontree keys / serve", () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "st-cli-"));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("creates, lists and revokes keys in the data folder that serve uses", async () => {
    const created = JSON.parse(
      await cli("keys", "create", "--user", "alice", "--name", "laptop", "--data", dir, "--json"),
    );
    assert.match(created.key, /^st_[0-9a-f]{12}_/);
    const server = await serve("--data", dir);
    try {
      const ok = await call(server.url, "POST", "/v1/sessions", { key: created.key, body: { name: "cli" } });
      assert.equal(ok.status, 201);
      const listed = JSON.parse(await cli("keys", "list", "--user", "alice", "--data", dir, "--json"));
      assert.deepEqual(
        listed.map((k: { id: string; name: string; revokedAt: string | null }) => [
          k.id,
          k.name,
          k.revokedAt,
        ]),
        [[created.id, "laptop", null]],
      );
      // The secret is everything after `st_<id>_` (base64url: it may itself hold "_").
      const secret = created.key.slice(`st_${created.id}_`.length);
      assert.ok(
        secret.length >= 40 && !JSON.stringify(listed).includes(secret),
        "the secret is never listed",
      );
      await cli("keys", "revoke", "--user", "alice", created.id, "--data", dir);
      const refused = await call(server.url, "GET", "/v1/sessions", { key: created.key });
      assert.equal(refused.status, 401, "a running server refuses the key at once");
    } finally {
      assert.equal(await server.stop(), 0, "serve exits cleanly on SIGTERM");
    }
  });

  it("prints JSON for keys create/list/revoke --json, with --json before or after the command", async () => {
    const created = JSON.parse(await cli("keys", "create", "--user", "jo", "--data", dir, "--json"));
    assert.match(created.key, /^st_/);
    const before = JSON.parse(await cli("--json", "keys", "list", "--user", "jo", "--data", dir));
    assert.equal(before[0].id, created.id);
    const revoked = JSON.parse(
      await cli("keys", "revoke", "--user", "jo", created.id, "--data", dir, "--json"),
    );
    assert.deepEqual(revoked, { revoked: created.id });
  });

  it("treats an empty SESSIONTREE_DATABASE as unset (the data folder's SQLite is used)", async () => {
    const saved = process.env.SESSIONTREE_DATABASE;
    process.env.SESSIONTREE_DATABASE = "";
    try {
      const created = JSON.parse(await cli("keys", "create", "--user", "empty-env", "--data", dir, "--json"));
      const service = await openServiceDb({ data: dir });
      try {
        assert.equal((await service.findKey(created.id))?.userId, "empty-env");
      } finally {
        await service.close();
      }
      const backends = await openBackends({ data: dir, database: "" });
      try {
        assert.equal(backends.db.kind, "sqlite");
      } finally {
        await backends.db.close();
        await backends.store.close();
        await backends.close?.();
      }
    } finally {
      if (saved === undefined) delete process.env.SESSIONTREE_DATABASE;
      else process.env.SESSIONTREE_DATABASE = saved;
    }
  });

  it("will not revoke another user's key", async () => {
    const created = JSON.parse(await cli("keys", "create", "--user", "bob", "--data", dir, "--json"));
    await assert.rejects(cli("keys", "revoke", "--user", "mallory", created.id, "--data", dir));
    const listed = JSON.parse(await cli("keys", "list", "--user", "bob", "--data", dir, "--json"));
    assert.equal(listed[0].revokedAt, null);
  });

  it("manages keys in PostgreSQL with --database", async () => {
    const db = await freshPgDatabase();
    try {
      const created = JSON.parse(
        await cli("keys", "create", "--user", "carol", "--database", db.url, "--json"),
      );
      await cli("keys", "revoke", "--user", "carol", created.key, "--database", db.url);
      const service = await openServiceDb({ database: db.url });
      const row = await service.findKey(created.id);
      await service.close();
      assert.equal(row?.userId, "carol");
      assert.notEqual(row?.revokedAt, null, "revoked by the whole key as well as by its id");
    } finally {
      await db.drop();
    }
  });

  it("disables a user on a running server (every credential) and enables it again", async () => {
    const { key } = JSON.parse(await cli("keys", "create", "--user", "dis", "--data", dir, "--json"));
    const server = await serve("--data", dir);
    try {
      assert.equal((await call(server.url, "GET", "/v1/sessions", { key })).status, 200);
      const done = JSON.parse(
        await cli("keys", "disable-user", "--user", "dis", "--reason", "left", "--data", dir, "--json"),
      );
      assert.deepEqual(done, { disabled: "dis", changed: true });
      const refused = await call(server.url, "GET", "/v1/sessions", { key });
      assert.equal(refused.status, 403);
      assert.equal(refused.json.code, "user_disabled");
      const listed = JSON.parse(await cli("keys", "disabled-users", "--data", dir, "--json"));
      assert.deepEqual(
        listed.map((row: { userId: string; reason: string }) => [row.userId, row.reason]),
        [["dis", "left"]],
      );
      await cli("keys", "enable-user", "--user", "dis", "--data", dir);
      assert.equal((await call(server.url, "GET", "/v1/sessions", { key })).status, 200);
    } finally {
      await server.stop();
    }
  });

  it("creates a key that expires, and lists its expiry and last use", async () => {
    const before = Date.now();
    const created = JSON.parse(
      await cli("keys", "create", "--user", "temp", "--expires-in", "2h", "--data", dir, "--json"),
    );
    const expiresAt = Date.parse(created.expiresAt);
    assert.ok(expiresAt >= before + 7_200_000 && expiresAt <= Date.now() + 7_200_000, created.expiresAt);
    const [listed] = JSON.parse(await cli("keys", "list", "--user", "temp", "--data", dir, "--json"));
    assert.equal(listed.expiresAt, created.expiresAt);
    assert.equal(listed.lastUsedAt, null);
    await assert.rejects(cli("keys", "create", "--user", "temp", "--expires-in", "2 weeks", "--data", dir));
  });
});

describe("sessiontree purge-deleted", () => {
  it("purges only sessions soft-deleted longer ago than the period, and audits it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "st-purge-"));
    try {
      const { key } = JSON.parse(await cli("keys", "create", "--user", "dora", "--data", dir, "--json"));
      const server = await serve("--data", dir);
      let doomed: string;
      let live: string;
      try {
        doomed = (await call(server.url, "POST", "/v1/sessions", { key, body: {} })).json.id;
        live = (await call(server.url, "POST", "/v1/sessions", { key, body: {} })).json.id;
        assert.equal((await call(server.url, "DELETE", `/v1/sessions/${doomed}`, { key })).status, 200);
      } finally {
        await server.stop();
      }
      const program = new Command("sessiontree").exitOverride();
      registerPurge(program);
      const printed: string[] = [];
      const log = console.log;
      console.log = (line: string) => printed.push(line);
      try {
        await program.parseAsync([
          "node",
          "sessiontree",
          "purge-deleted",
          "--older-than-days",
          "1",
          "--data",
          dir,
        ]);
        await program.parseAsync([
          "node",
          "sessiontree",
          "purge-deleted",
          "--older-than-days",
          "0",
          "--data",
          dir,
        ]);
      } finally {
        console.log = log;
      }
      assert.deepEqual(printed, ["purged 0 sessions", "purged 1 session"]);
      const backends = await openBackends({ data: dir });
      try {
        await assert.rejects(backends.store.getSummary("dora", doomed, { includeDeleted: true }), {
          code: "session_not_found",
        });
        assert.equal((await backends.store.getSummary("dora", live)).id, live);
        const audit = await backends.db.listDeletions("dora", 10);
        assert.deepEqual(
          audit.map((r) => [r.action, r.via, r.sessionId]),
          [
            ["retention_purge", "cli", doomed],
            ["delete", "api", doomed],
          ],
        );
      } finally {
        await backends.db.close();
        await backends.store.close();
        await backends.close?.();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
