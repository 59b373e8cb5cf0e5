import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import { Hono } from "hono";
import { SessionManager } from "../../src/session/session-manager.js";
import { createViewerApp } from "../../src/viewer/app.js";
import { createLocalSource } from "../../src/viewer/local-source.js";
import { mountServiceViewer } from "../../src/viewer/service-page.js";
import type { ViewerSearchHit, ViewerSource } from "../../src/viewer/source.js";
import { REPO } from "../cli/helpers.js";
import { messageMaker } from "../support/messages.js";
import { makeViewerRoots, type ViewerRoots } from "./support/sessions.js";

describe("the viewer's search (local /api/search: the local full-text index of both roots)", () => {
  let roots: ViewerRoots;
  let app: ReturnType<typeof createViewerApp>;

  before(() => {
    roots = makeViewerRoots();
    app = createViewerApp(createLocalSource({ root: roots.root, piDir: roots.piDir }));
  });
  after(() => rmSync(roots.base, { recursive: true, force: true }));

  const search = async (q: string, extra = "") => {
    const res = await app.request(`/api/search?q=${encodeURIComponent(q)}${extra}`);
    return {
      status: res.status,
      body: (await res.json()) as { items: ViewerSearchHit[]; error?: { code: string } },
    };
  };
  const contextAt = async (hit: ViewerSearchHit | undefined) => {
    const res = await app.request(
      `/api/context?key=${encodeURIComponent(hit?.key ?? "")}&at=${encodeURIComponent(hit?.entryId ?? "")}`,
    );
    assert.equal(res.status, 200);
    return ((await res.json()) as { entryId: string }).entryId;
  };

  it("finds the entries holding every word, whatever their case, with the key that opens them", async () => {
    const { status, body } = await search("depth COUNTER decremented");
    assert.equal(status, 200);
    const [hit] = body.items;
    assert.equal(body.items.length, 1);
    assert.equal(hit?.entryId, roots.branched.diagnosis);
    assert.equal(hit?.sessionId, roots.branched.sessionId);
    assert.equal(hit?.kind, "assistant");
    assert.equal(hit?.branch, "path");
    assert.equal(hit?.sessionName, "Fix nested-list parsing");
    assert.equal(hit?.cwd, "/home/dev/parser-project");
    assert.equal(hit?.path, roots.branched.file);
    assert.match(hit?.snippet ?? "", /«depth» «counter» is never «decremented»/);
    // The key opens the hit's session at that entry through the page's own routes.
    assert.match(hit?.key ?? "", /^sessiontree:/);
    assert.equal(await contextAt(hit), roots.branched.diagnosis);
  });

  it("searches pi's sessions too, keyed as the list keys them (a v1 file: the ids the viewer reads)", async () => {
    const { body } = await search('"oauth-selector"', "&limit=5");
    assert.ok(body.items.length > 0);
    const listed = new Set(
      (
        (await (await app.request("/api/sessions")).json()) as { sessions: Array<{ key: string }> }
      ).sessions.map((s) => s.key),
    );
    for (const hit of body.items) {
      assert.match(hit.key, /^pi:--Users-badlogic-workspaces-pi-mono--\//);
      assert.ok(listed.has(hit.key), hit.key);
    }
    assert.equal(await contextAt(body.items[0]), body.items[0]?.entryId);
  });

  it("takes the index's query syntax: whole words, phrases, prefixes", async () => {
    const { body } = await search("tokenizer at fault");
    assert.deepEqual(
      body.items.map((h) => [h.entryId, h.branch]),
      [[roots.branched.altAnswer, "abandoned"]],
    );
    assert.deepEqual((await search("tokenize")).body.items, []);
    assert.deepEqual(
      (await search("tokeniz*")).body.items.map((h) => h.entryId),
      [roots.branched.altAnswer],
    );
    assert.deepEqual(
      (await search('"counter is never"')).body.items.map((h) => h.entryId),
      [roots.branched.diagnosis],
    );
    assert.deepEqual((await search('"never is counter"')).body.items, []);
  });

  it("ranks best first, bounds the answer by limit, and finds nothing for absent words", async () => {
    const all = (await search("the")).body.items;
    assert.ok(all.length > 5, `${all.length} hits`);
    for (let i = 1; i < all.length; i++) assert.ok((all[i - 1]?.score ?? 0) >= (all[i]?.score ?? 0));
    // Both roots' indexes, merged best first.
    const both = (await search("nested")).body.items;
    assert.ok(
      both.some((h) => h.key.startsWith("pi:")) && both.some((h) => h.key.startsWith("sessiontree:")),
    );
    for (let i = 1; i < both.length; i++) assert.ok((both[i - 1]?.score ?? 0) >= (both[i]?.score ?? 0));
    assert.equal((await search("the", "&limit=3")).body.items.length, 3);
    assert.deepEqual((await search("xylophone-that-is-nowhere")).body.items, []);
  });

  it("sees what was appended since the last search", async () => {
    assert.deepEqual((await search("quokka")).body.items, []);
    const manager = SessionManager.open(roots.branched.file, undefined, undefined, { root: roots.root });
    let added: string;
    try {
      added = manager.appendMessage(messageMaker(Date.now()).user("a quokka in the parser"));
    } finally {
      manager.close();
    }
    assert.deepEqual(
      (await search("quokka")).body.items.map((h) => [h.entryId, h.branch]),
      [[added, "path"]],
    );
  });

  it("refuses a missing query or one without words, and says when a source cannot search", async () => {
    assert.equal((await app.request("/api/search")).status, 400);
    assert.equal((await search("x", "&limit=-1")).status, 400);
    const wordless = await search("*** --");
    assert.equal(wordless.status, 400);
    assert.equal(wordless.body.error?.code, "invalid_argument");
    const source = createLocalSource({ root: roots.root, piDir: null });
    const bare: ViewerSource = {
      describe: () => source.describe(),
      listSessions: () => source.listSessions(),
      loadSession: (key) => source.loadSession(key),
    };
    const res = await createViewerApp(bare).request("/api/search?q=depth");
    assert.equal(res.status, 404);
    assert.equal(((await res.json()) as { error: { code: string } }).error.code, "search_unavailable");
  });

  it("loads the index (better-sqlite3) at the first search, not when the viewer opens", () => {
    const url = (path: string) => pathToFileURL(join(REPO, path)).href;
    const probe = `
      import { createRequire } from "node:module";
      const { createLocalSource } = await import(${JSON.stringify(url("src/viewer/local-source.ts"))});
      const { createViewerApp } = await import(${JSON.stringify(url("src/viewer/app.ts"))});
      const sqlite = () => Object.keys(createRequire(import.meta.url).cache).some((f) => f.includes("better-sqlite3"));
      const app = createViewerApp(createLocalSource(${JSON.stringify({ root: roots.root, piDir: roots.piDir })}));
      await app.request("/api/sessions");
      const opened = sqlite();
      const found = (await (await app.request("/api/search?q=depth")).json()).items.length;
      console.log(JSON.stringify({ opened, found, searched: sqlite() }));
    `;
    const child = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", probe], {
      cwd: REPO,
      env: { ...process.env },
      encoding: "utf8",
    });
    assert.equal(child.status, 0, child.stderr);
    const { opened, found, searched } = JSON.parse(child.stdout) as Record<string, unknown>;
    assert.deepEqual({ opened, searched }, { opened: false, searched: true });
    assert.ok(typeof found === "number" && found > 0, child.stdout);
  });
});

describe("the viewer's page headers", () => {
  it("locally and on the service: a CSP allowing only the page's own script, style and origin", async () => {
    const service = new Hono();
    mountServiceViewer(service);
    const local = createViewerApp({
      describe: async () => [],
      listSessions: async () => [],
      loadSession: async () => {
        throw new Error("unused");
      },
    });
    for (const res of [await service.request("/"), await local.request("/")]) {
      assert.equal(res.status, 200);
      const csp = res.headers.get("content-security-policy") ?? "";
      for (const part of [
        "default-src 'none'",
        "connect-src 'self'",
        "frame-ancestors 'none'",
        "base-uri 'none'",
      ]) {
        assert.ok(csp.includes(part), `${part} in ${csp}`);
      }
      assert.match(csp, /script-src 'sha256-[A-Za-z0-9+/=]+'/);
      assert.equal(res.headers.get("x-content-type-options"), "nosniff");
      assert.equal(res.headers.get("referrer-policy"), "no-referrer");
      assert.equal(res.headers.get("cache-control"), "no-store");
    }
    const html = await (await service.request("/")).text();
    assert.match(html, /"mode":"service"/);
    assert.ok(html.includes('id="signin"'));
  });
});
