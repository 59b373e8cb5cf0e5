import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { SessionTreeClient } from "../../src/client/index.js";
import { projectContext } from "../../src/core/context.js";
import type { SessionEntry } from "../../src/core/entry.js";
import { decodeSession } from "../../src/format/jsonl/decode.js";
import { startTestServer, type TestServer, userMessage } from "./helpers.js";

const FIXTURES =
  process.env.SESSIONTREE_PI_FIXTURES ?? new URL("../../../shared/fixtures/pi/", import.meta.url).pathname;

function entry(id: string, parentId: string | null, text: string) {
  return { ...userMessage(text), id, parentId, timestamp: "2026-01-01T00:00:00.000Z" };
}

describe("routes over one session's tree (sqlite)", () => {
  let t: TestServer;
  let client: SessionTreeClient;

  before(async () => {
    t = await startTestServer("sqlite");
    client = new SessionTreeClient({ baseUrl: t.url, token: await t.key("alice") });
  });
  after(() => t.close());

  it("rewinds, branches, labels and projects context like pi", async () => {
    const s = await client.createSession({ cwd: "/w" });
    await client.append(s.id, [entry("a", null, "one"), entry("b", "a", "two"), entry("c", "b", "three")]);
    await client.setLeaf(s.id, "a");
    const fork = await client.append(s.id, [userMessage("other way")]);
    const [d] = fork.appended;
    const tree = await client.getTree(s.id);
    const a = tree.nodes.find((n) => n.id === "a");
    assert.deepEqual(a?.children.sort(), ["b", d].sort());
    assert.equal(tree.leafId, d);

    const summary = await client.branch(s.id, "c", { summary: "tried the other way" });
    const bs = summary.appended[0] as string;
    const path = (await client.readBranch(s.id)).entries;
    assert.deepEqual(
      path.map((e) => e.id),
      ["a", "b", "c", bs],
    );
    const context = await client.getContext(s.id);
    assert.deepEqual(
      context.messages.map((m) => (m as { role: string }).role),
      ["user", "user", "user", "branchSummary"],
    );
    const { compaction: _compaction, ...projected } = projectContext(path as unknown as SessionEntry[]);
    assert.deepEqual(context, { ...projected, leafId: bs });

    const atD = await client.getContext(s.id, d);
    assert.deepEqual(
      atD.messages.map((m) => (m as { content: string }).content),
      ["one", "other way"],
    );

    await client.setLabel(s.id, "b", "checkpoint");
    assert.deepEqual((await client.getLabels(s.id)).labels, { b: "checkpoint" });
    assert.equal((await client.getTree(s.id)).nodes.find((n) => n.id === "b")?.label, "checkpoint");
    await client.setLabel(s.id, "b", "");
    assert.deepEqual((await client.getLabels(s.id)).labels, {});

    const renamed = await client.renameSession(s.id, "  the name  ");
    assert.equal(renamed.name, "the name");
    await client.branch(s.id, null);
    assert.equal((await client.getSession(s.id)).leafId, null);
    assert.deepEqual((await client.getContext(s.id)).messages, []);
  });

  it("answers the tree in core's SessionTree order: depth first, children oldest first", async () => {
    const s = await client.createSession({ cwd: "/w" });
    const at = (id: string, parentId: string | null, time: string) => ({
      ...entry(id, parentId, id),
      timestamp: `2026-01-01T00:00:0${time}.000Z`,
    });
    // Stored as r, late, early, early-child: the children of r are stored newest first.
    await client.append(s.id, [at("r", null, "0"), at("late", "r", "5"), at("early", "r", "1")]);
    await client.append(s.id, [at("early-child", "early", "2")]);
    await client.setLabel(s.id, "late", "keep");
    const tree = await client.getTree(s.id);
    assert.deepEqual(tree.roots, ["r"]);
    const r = tree.nodes.find((n) => n.id === "r");
    assert.deepEqual(r?.children, ["early", "late"]);
    // The label entry went under the leaf, early-child; each node comes before its children.
    const label = tree.nodes.find((n) => n.type === "label")?.id as string;
    assert.deepEqual(
      tree.nodes.map((n) => n.id),
      ["r", "early", "early-child", label, "late"],
    );
    assert.equal(tree.nodes.find((n) => n.id === "late")?.label, "keep");
  });

  it("pages entries and sessions, and searches", async () => {
    const s = await client.createSession({ name: "needle in a haystack" });
    await client.append(
      s.id,
      Array.from({ length: 25 }, (_, i) => entry(`e${i}`, i === 0 ? null : `e${i - 1}`, `m${i}`)),
    );
    const seen: string[] = [];
    let after = 0;
    for (;;) {
      const page = await client.readEntries(s.id, { after, limit: 10 });
      seen.push(...page.entries.map((e) => e.id));
      if (page.nextAfter === null) break;
      after = page.nextAfter;
    }
    assert.equal(seen.length, 25);
    assert.equal(new Set(seen).size, 25);

    for (let i = 0; i < 4; i++) await client.createSession({ name: `filler ${i}` });
    const ids: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listSessions({ limit: 2, cursor });
      ids.push(...page.items.map((x) => x.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    assert.equal(new Set(ids).size, ids.length);
    assert.ok(ids.includes(s.id));
    const found = await client.listSessions({ search: "NEEDLE" });
    assert.deepEqual(
      found.items.map((x) => x.id),
      [s.id],
    );
  });

  it("imports a real pi v1 session and exports it as v3 with the same context", async () => {
    const text = readFileSync(`${FIXTURES}large-session.jsonl`, "utf8");
    const imported = await client.importJsonl(text);
    const decoded = decodeSession(text);
    assert.equal(imported.entryCount, decoded.entries.length);
    const exported = await client.exportJsonl(imported.id);
    const header = JSON.parse(exported.split("\n")[0] as string);
    assert.equal(header.version, 3);
    assert.equal(header.id, imported.id);
    const again = decodeSession(exported);
    assert.deepEqual(
      again.entries.map((e) => e.entry.id),
      decoded.entries.map((e) => e.entry.id),
    );
    const context = await client.getContext(imported.id);
    assert.ok(context.messages.length > 100);
    const reimported = await client.importJsonl(exported, { idempotencyKey: "import-once" });
    const replay = await client.importJsonl(exported, { idempotencyKey: "import-once" });
    assert.equal(replay.id, reimported.id);
    assert.deepEqual((await client.getContext(reimported.id)).messages, context.messages);
  });
});
