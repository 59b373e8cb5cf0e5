import assert from "node:assert/strict";
import { copyFileSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { createServer } from "../../src/server/index.js";
import { call } from "./helpers.js";

/**
 * The embedded SQLite file removed or replaced under a running server: the connection keeps
 * answering (from the file it holds open), so a `SELECT 1` says ready while every acknowledged
 * write goes to a file the next start will not open. Readiness checks the file at the path.
 */
describe("readiness follows the SQLite file", () => {
  const scratch = mkdtempSync(join(tmpdir(), "st-ready-sqlite-"));
  after(() => rmSync(scratch, { recursive: true, force: true }));

  async function serving(name: string) {
    const data = join(scratch, name);
    const logLines: string[] = [];
    const server = await createServer({
      port: 0,
      data,
      rateLimit: false,
      accessLog: (line) => logLines.push(line),
    });
    const { url } = await server.listen();
    return { server, url, file: join(data, "sessiontree.db"), logLines };
  }

  function lastErrorCause(lines: string[]): string | undefined {
    const logged = lines.map((line) => JSON.parse(line)).filter((line) => line.path === "/readyz");
    return logged.at(-1)?.error?.cause?.message;
  }

  it("is 503 once the file is removed, and says so in the log, not to the caller", async () => {
    const { server, url, file, logLines } = await serving("removed");
    try {
      assert.equal((await call(url, "GET", "/readyz")).status, 200);
      rmSync(file);
      const ready = await call(url, "GET", "/readyz");
      assert.equal(ready.status, 503);
      assert.equal(ready.json.code, "not_ready");
      assert.doesNotMatch(ready.text, /sessiontree\.db/);
      assert.match(lastErrorCause(logLines) ?? "", /sessiontree\.db was removed/);
      assert.equal((await call(url, "GET", "/healthz")).status, 200, "the process itself is fine");
    } finally {
      await server.close();
    }
  });

  it("is 503 once another file is moved over it (a copy put in place while running)", async () => {
    const { server, url, file, logLines } = await serving("replaced");
    try {
      copyFileSync(file, `${file}.copy`);
      renameSync(`${file}.copy`, file);
      const ready = await call(url, "GET", "/readyz");
      assert.equal(ready.status, 503);
      assert.match(lastErrorCause(logLines) ?? "", /sessiontree\.db was replaced/);
    } finally {
      await server.close();
    }
  });

  it("stays 200 while the file is the one opened", async () => {
    const { server, url } = await serving("kept");
    try {
      for (let i = 0; i < 3; i++) assert.equal((await call(url, "GET", "/readyz")).status, 200);
    } finally {
      await server.close();
    }
  });
});
