import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { startServeChild } from "../support/serve-child.js";

const _CHILD = join(import.meta.dirname, "../server/cli-child.ts");

const serve = (...args: string[]) => startServeChild(args);

describe("sessiontree serve and its viewer", () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "st-serve-viewer-"));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("serves the viewer's page at / by default, without a credential", async () => {
    const server = await serve("--data", dir, "--no-access-log");
    try {
      const res = await fetch(`${server.url}/`);
      assert.equal(res.status, 200);
      assert.match(res.headers.get("content-type") ?? "", /text\/html/);
      assert.match(res.headers.get("content-security-policy") ?? "", /default-src 'none'/);
      assert.match(await res.text(), /"mode":"service"/);
      // The API behind it still wants a credential.
      assert.equal((await fetch(`${server.url}/v1/sessions`)).status, 401);
    } finally {
      await server.stop();
    }
  });

  it("--no-viewer leaves / unanswered, like any unknown route", async () => {
    const server = await serve("--data", dir, "--no-access-log", "--no-viewer");
    try {
      const res = await fetch(`${server.url}/`);
      assert.equal(res.status, 404);
      assert.equal(((await res.json()) as { code: string }).code, "route_not_found");
    } finally {
      await server.stop();
    }
  });
});
