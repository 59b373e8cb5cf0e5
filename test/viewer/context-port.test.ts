import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { projectContext } from "../../src/core/context.js";
import { SessionManager } from "../../src/session/session-manager.js";
import { loadClientScripts, plain } from "./support/client-vm.js";
import { makeViewerRoots, PI_FIXTURES, type ViewerRoots } from "./support/sessions.js";

/**
 * The single-file export computes context in the page with a port of core's projection.
 * These tests hold the port to core: same messages, same entry ids, same model and warnings.
 */
describe("the page's context port agrees with core's projectContext", () => {
  const client = loadClientScripts();
  let roots: ViewerRoots;
  before(() => {
    roots = makeViewerRoots();
  });
  after(() => rmSync(roots.base, { recursive: true, force: true }));

  function compare(file: string, every: number): number {
    const sm = SessionManager.open(file);
    try {
      const entries = sm.getEntries();
      const model = client.buildModel({ entries, leafId: sm.getLeafId(), labels: {} });
      assert.equal(model.n, entries.length);
      let compared = 0;
      entries.forEach((entry, i) => {
        if (i % every !== 0 && entry.id !== sm.getLeafId()) return;
        const expected = projectContext(sm.getBranch(entry.id));
        const actual = plain(client.localContextAt(model, model.indexOf.get(entry.id) as number)) as Record<
          string,
          unknown
        >;
        assert.deepEqual(actual.messages, plain(expected.messages), `messages at ${entry.id}`);
        assert.deepEqual(actual.messageEntryIds, expected.messageEntryIds);
        assert.deepEqual(actual.model, plain(expected.model));
        assert.equal(actual.thinkingLevel, expected.thinkingLevel);
        assert.deepEqual(actual.compaction, plain(expected.compaction));
        assert.deepEqual(actual.warnings, plain(expected.warnings));
        assert.deepEqual(actual.extensionState, plain(expected.extensionState));
        assert.equal(actual.pathLength, sm.getBranch(entry.id).length);
        compared++;
      });
      return compared;
    } finally {
      sm.close();
    }
  }

  it("at every entry of a branched session with a compaction and a branch summary", () => {
    const compared = compare(roots.branched.file, 1);
    assert.ok(compared >= 25, `compared ${compared}`);
  });

  it("on both real pi sessions (every 25th entry and the leaf)", () => {
    assert.ok(compare(join(PI_FIXTURES, "large-session.jsonl"), 25) >= 40);
    assert.ok(compare(join(PI_FIXTURES, "before-compaction.jsonl"), 25) >= 40);
  });

  it("gives pi's documented context for large-session.jsonl at its leaf", () => {
    const sm = SessionManager.open(join(PI_FIXTURES, "large-session.jsonl"));
    const model = client.buildModel({ entries: sm.getEntries(), leafId: sm.getLeafId() });
    const ctx = plain(client.localContextAt(model, model.leaf)) as { messages: unknown[]; model: unknown };
    sm.close();
    assert.equal(ctx.messages.length, 914);
    assert.deepEqual(ctx.model, { provider: "anthropic", modelId: "claude-sonnet-4-5" });
  });

  it("reports a compaction whose kept entry is not on the path, as core does", () => {
    const entries = [
      {
        type: "message",
        id: "a",
        parentId: null,
        timestamp: "2026-01-01T00:00:00.000Z",
        message: { role: "user", content: "hi" },
      },
      {
        type: "message",
        id: "b",
        parentId: null,
        timestamp: "2026-01-01T00:00:01.000Z",
        message: { role: "user", content: "other root" },
      },
      {
        type: "compaction",
        id: "c",
        parentId: "a",
        timestamp: "2026-01-01T00:00:02.000Z",
        summary: "S",
        firstKeptEntryId: "b",
        tokensBefore: 5,
      },
    ];
    const model = client.buildModel({ entries, leafId: "c" });
    const ctx = plain(client.localContextAt(model, 2)) as {
      warnings: Array<{ code: string }>;
      messages: unknown[];
    };
    assert.deepEqual(
      ctx.warnings.map((w) => w.code),
      ["first_kept_not_on_path"],
    );
    assert.equal(ctx.messages.length, 1);
  });
});
