import assert from "node:assert/strict";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { SessionManager } from "../../src/session/session-manager.js";
import { createViewerApp } from "../../src/viewer/app.js";
import { createLocalSource } from "../../src/viewer/local-source.js";
import { type ShapeWire, shapeFromWire } from "../../src/viewer/shape-wire.js";
import type { ViewerSession, ViewerSessionSummary } from "../../src/viewer/source.js";
import { makeViewerRoots, type ViewerRoots } from "./support/sessions.js";

describe("the viewer's JSON routes over local files", () => {
  let roots: ViewerRoots;
  let app: ReturnType<typeof createViewerApp>;
  let sessions: ViewerSessionSummary[];

  before(async () => {
    roots = makeViewerRoots();
    // Garbage next to real sessions must not break the listing.
    writeFileSync(
      join(roots.piDir, "sessions", "--Users-badlogic-workspaces-pi-mono--", "garbage.jsonl"),
      "not json\n",
    );
    app = createViewerApp(createLocalSource({ root: roots.root, piDir: roots.piDir }));
    sessions = ((await (await app.request("/api/sessions")).json()) as { sessions: ViewerSessionSummary[] })
      .sessions;
  });
  after(() => rmSync(roots.base, { recursive: true, force: true }));

  const get = async (path: string) => {
    const res = await app.request(path);
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const keyOf = (id: string) => sessions.find((s) => s.id === id)?.key as string;
  const branchedKey = () => keyOf(roots.branched.sessionId);

  it("lists our sessions and pi's, tagged by source, newest first", () => {
    assert.deepEqual(sessions.map((s) => s.source).sort(), ["pi", "pi", "sessiontree"]);
    const ours = sessions.find((s) => s.source === "sessiontree");
    assert.equal(ours?.name, "Fix nested-list parsing");
    assert.equal(ours?.cwd, "/home/dev/parser-project");
    const pi = sessions.filter((s) => s.source === "pi").map((s) => s.messageCount);
    assert.ok(
      pi.every((count) => count > 900),
      `pi fixtures have their messages: ${pi}`,
    );
    const times = sessions.map((s) => s.modifiedAt);
    assert.deepEqual(times, [...times].sort().reverse());
  });

  it("describes where it looks", async () => {
    const { body } = await get("/api/origins");
    assert.deepEqual(body.origins, [
      { source: "sessiontree", location: join(roots.root, "sessions"), exists: true },
      { source: "pi", location: join(roots.piDir, "sessions"), exists: true },
    ]);
  });

  it("loads a session with its leaf (kept across the rewind), labels and name", async () => {
    const { status, body } = await get(`/api/session?key=${encodeURIComponent(branchedKey())}`);
    assert.equal(status, 200);
    const session = body as unknown as ViewerSession;
    assert.equal(session.leafId, roots.branched.leaf);
    assert.deepEqual(session.labels, {
      [roots.branched.diagnosis]: "diagnosis",
      [roots.branched.leaf]: "done",
    });
    assert.equal(session.name, "Fix nested-list parsing");
    assert.equal(session.header.id, roots.branched.sessionId);
    assert.ok(
      session.entries.some((e) => e.id === roots.branched.altAnswer),
      "abandoned branches are included",
    );
    assert.ok(!session.entries.some((e) => e.type === "custom"), "the leaf marker is not an entry");
  });

  it("answers the context at any node exactly as SessionManager builds it", async () => {
    const sm = SessionManager.open(roots.branched.file);
    try {
      for (const id of [
        roots.branched.leaf,
        roots.branched.refactorError,
        roots.branched.altAnswer,
        roots.branched.compaction,
      ]) {
        const { status, body } = await get(`/api/context?key=${encodeURIComponent(branchedKey())}&at=${id}`);
        assert.equal(status, 200);
        const expected = JSON.parse(JSON.stringify(sm.buildSessionContextAt(id)));
        assert.deepEqual(body.messages, expected.messages, `messages at ${id}`);
        assert.deepEqual(body.messageEntryIds, expected.messageEntryIds);
        assert.equal(body.entryId, id);
      }
    } finally {
      sm.close();
    }
    const { body } = await get(
      `/api/context?key=${encodeURIComponent(branchedKey())}&at=${roots.branched.leaf}`,
    );
    assert.equal((body.messages as Array<{ role: string }>)[0]?.role, "compactionSummary");
  });

  it("answers only the latest messages when asked for a tail", async () => {
    const base = `/api/context?key=${encodeURIComponent(branchedKey())}&at=${roots.branched.leaf}`;
    const full = (await get(base)).body as { messages: unknown[]; messageEntryIds: string[] };
    const { status, body } = await get(`${base}&tail=3`);
    assert.equal(status, 200);
    assert.deepEqual(body.messages, full.messages.slice(-3));
    assert.deepEqual(body.messageEntryIds, full.messageEntryIds.slice(-3));
    assert.equal(body.omitted, full.messages.length - 3);
    assert.equal((await get(`${base}&tail=-1`)).status, 400);
  });

  it("pages earlier messages with before=, and sends the entry itself with its context", async () => {
    const base = `/api/context?key=${encodeURIComponent(branchedKey())}&at=${roots.branched.regressionPrompt}`;
    const full = (await get(base)).body as { messages: unknown[]; messageEntryIds: string[]; total: number };
    assert.ok(full.messages.length > 4);
    assert.equal(full.total, full.messages.length);
    const { body } = await get(`${base}&tail=2&before=3`);
    assert.deepEqual(body.messageEntryIds, full.messageEntryIds.slice(1, 3));
    assert.equal(body.omitted, 1);
    assert.equal(body.total, full.messages.length);
    assert.equal((body.entry as { id: string }).id, roots.branched.regressionPrompt);
    assert.equal((await get(`${base}&before=x`)).status, 400);
  });

  it("sends a session's shape without bodies: core's entries, parents, leaf, labels, one line each", async () => {
    const { status, body } = await get(`/api/shape?key=${encodeURIComponent(branchedKey())}`);
    assert.equal(status, 200);
    const wire = body as unknown as ShapeWire;
    assert.equal(typeof wire.idText, "string", "the ids as one text");
    assert.ok(Array.isArray(wire.parentJumps), "the parents as the jumps of the chain");
    const shape = shapeFromWire(wire);
    const sm = SessionManager.open(roots.branched.file);
    try {
      const entries = sm.getEntries();
      assert.deepEqual(
        shape.ids,
        entries.map((e) => e.id),
      );
      const at = new Map(entries.map((e, i) => [e.id, i]));
      assert.deepEqual(
        shape.parents,
        entries.map((e) => (e.parentId === null ? -1 : (at.get(e.parentId) ?? -1))),
      );
      assert.equal(shape.ids[shape.leaf], sm.getLeafId());
    } finally {
      sm.close();
    }
    assert.deepEqual(shape.labels, {
      [roots.branched.diagnosis]: "diagnosis",
      [roots.branched.leaf]: "done",
    });
    assert.equal(shape.name, "Fix nested-list parsing");
    assert.equal(shape.looks.length, shape.ids.length);
    const diagnosis = shape.ids.indexOf(roots.branched.diagnosis);
    assert.match(shape.texts?.[diagnosis] as string, /^DIAGNOSIS: the depth counter/);
    const { start, ...tree } = body as { start: { entryId: string; messageEntryIds: string[] } };
    assert.ok(!JSON.stringify(tree).includes('"message"'), "no entry bodies");
    assert.equal(start.entryId, roots.branched.leaf, "sent with the leaf's entry and context");
    const sm2 = SessionManager.open(roots.branched.file);
    assert.deepEqual(start.messageEntryIds, sm2.buildSessionContextAt(roots.branched.leaf).messageEntryIds);
    sm2.close();

    const texts = await get(`/api/texts?key=${encodeURIComponent(branchedKey())}&from=1&to=3`);
    assert.deepEqual(texts.body, { from: 1, texts: shape.texts?.slice(1, 3) });
    assert.equal((await get(`/api/texts?key=${encodeURIComponent(branchedKey())}&from=-1&to=3`)).status, 400);
  });

  it("sees entries appended after the session was first loaded", async () => {
    const key = branchedKey();
    await get(`/api/session?key=${encodeURIComponent(key)}`);
    const sm = SessionManager.open(roots.branched.file);
    const added = sm.appendMessage({ role: "user", content: "a late question", timestamp: Date.now() });
    sm.close();
    const { status, body } = await get(`/api/context?key=${encodeURIComponent(key)}&at=${added}`);
    assert.equal(status, 200);
    assert.equal(body.entryId, added);
    const shape = shapeFromWire(
      (await get(`/api/shape?key=${encodeURIComponent(key)}`)).body as unknown as ShapeWire,
    );
    assert.equal(shape.ids.at(-1), added, "a kept shape is read again once the file changed");
  });

  it("refuses keys that name anything but a session file of its origins", async () => {
    const outside = join(roots.base, "secret.jsonl");
    writeFileSync(outside, "{}\n");
    mkdirSync(join(roots.root, "sessions", "x"), { recursive: true });
    for (const key of [
      "sessiontree:../../secret.jsonl",
      "sessiontree:x/../../../secret.jsonl",
      `sessiontree:${outside}`,
      "nosuchsource:a/b.jsonl",
      "sessiontree:x/missing.jsonl",
      "sessiontree:x",
    ]) {
      const { status, body } = await get(`/api/session?key=${encodeURIComponent(key)}`);
      assert.equal(status, 404, key);
      assert.equal((body.error as { code: string }).code, "session_not_found");
    }
  });

  it("answers 404 for an unknown entry and 400 for a missing parameter", async () => {
    const unknown = await get(`/api/context?key=${encodeURIComponent(branchedKey())}&at=nope`);
    assert.equal(unknown.status, 404);
    assert.equal((unknown.body.error as { code: string }).code, "entry_not_found");
    const missing = await get("/api/context?at=x");
    assert.equal(missing.status, 400);
    assert.equal((missing.body.error as { code: string }).code, "invalid_argument");
  });

  it("answers only its own host name when told to (no DNS rebinding)", async () => {
    const guarded = createViewerApp(createLocalSource({ root: roots.root, piDir: null }), {
      isAllowedHost: (host) => host === "127.0.0.1:7766",
    });
    const foreign = await guarded.request("/api/sessions", { headers: { host: "evil.example" } });
    assert.equal(foreign.status, 403);
    const own = await guarded.request("/api/sessions", { headers: { host: "127.0.0.1:7766" } });
    assert.equal(own.status, 200);
    assert.equal(((await own.json()) as { sessions: unknown[] }).sessions.length, 1);
  });
});
