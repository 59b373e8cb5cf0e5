import assert from "node:assert/strict";
import { it } from "node:test";
import type { SessionEntry } from "../../../src/core/entry.js";
import { SNIPPET_MARK } from "../../../src/core/search-hit.js";
import { make, newOwner, rejectsWith, type SpecContext } from "./helpers.js";

const { open, close } = SNIPPET_MARK;

function toolCall(id: string, parentId: string, name: string, args: Record<string, unknown>): SessionEntry {
  const content = [{ type: "toolCall", id: `call-${id}`, name, arguments: args }];
  return make.assistant(id, parentId, "", { content: content as never, stopReason: "toolUse" });
}

function toolResult(id: string, parentId: string, text: string): SessionEntry {
  const made = make.entry("message", id, parentId);
  const message = {
    role: "toolResult",
    toolCallId: "call-x",
    toolName: "bash",
    content: [{ type: "text", text }],
    isError: false,
    timestamp: Date.parse(made.timestamp),
  };
  return { ...made, message } as SessionEntry;
}

export function searchSpec(ctx: SpecContext): void {
  const store = () => ctx.store();

  it("finds user and assistant text, tool calls, tool results and summaries, with kind and marks", async () => {
    const owner = newOwner();
    const { id } = await store().createSession(owner, { name: "search demo", cwd: "/work/demo" });
    await store().appendEntries(owner, id, [
      make.user("u1", null, "Why does the walker stall on deep trees?"),
      make.assistant("a1", "u1", "The function readBranch walks from the leaf upwards."),
      toolCall("c1", "a1", "grep", { pattern: "readBranch", path: "src/store/engine/read-flows.ts" }),
      toolResult("r1", "c1", "src/store/engine/read-flows.ts:48: export function* branchFlow"),
      make.entry("compaction", "s1", "r1", {
        summary: "Summary: the walker was fixed",
        firstKeptEntryId: "r1",
        tokensBefore: 100,
      }),
      make.entry("model_change", "m1", "s1", { provider: "anthropic", modelId: "walker-model" }),
    ]);
    const kinds = async (q: string) =>
      (await store().search(owner, q)).map((hit) => `${hit.entryId}:${hit.kind}`).sort();
    assert.deepEqual(await kinds("walker"), ["s1:summary", "u1:user"]); // not the model_change
    // Words and identifier pieces, in any case: `Branch` is a piece of `readBranch` and `branchFlow`.
    assert.deepEqual(await kinds("Branch"), ["a1:assistant", "c1:assistant", "r1:toolResult"]);
    assert.deepEqual(await kinds("read-flows.ts"), ["c1:assistant", "r1:toolResult"]);
    assert.deepEqual(await kinds("branchflow"), ["r1:toolResult"]);
    assert.deepEqual(await kinds("read_flows"), ["c1:assistant", "r1:toolResult"]); // words in a row
    assert.deepEqual(await kinds("engine/read"), ["c1:assistant", "r1:toolResult"]);
    const [hit] = await store().search(owner, "upwards");
    assert.ok(hit);
    assert.equal(hit.sessionId, id);
    assert.equal(hit.sessionName, "search demo");
    assert.equal(hit.cwd, "/work/demo");
    assert.equal(hit.branch, "path");
    assert.equal(hit.timestamp, (await store().readBranch(owner, id, "a1")).at(-1)?.timestamp);
    assert.ok(hit.snippet.includes(`${open}upwards${close}`), hit.snippet);
    assert.ok(Number.isFinite(hit.score));
  });

  it("every term must match; a quoted phrase is one term; short terms filter", async () => {
    const owner = newOwner();
    const { id } = await store().createSession(owner);
    await store().appendEntries(owner, id, [
      make.user("p1", null, "deploy the staging cluster to eu"),
      make.user("p2", "p1", "deploy the production cluster"),
      make.user("p3", "p2", "cluster staging deploy"),
    ]);
    const found = async (q: string) => (await store().search(owner, q)).map((hit) => hit.entryId).sort();
    assert.deepEqual(await found("deploy staging"), ["p1", "p3"]);
    assert.deepEqual(await found('"staging cluster"'), ["p1"]);
    assert.deepEqual(await found("DEPLOY eu"), ["p1"]);
    assert.deepEqual(await found("deploy nowhere"), []);
  });

  it("matches whole words and identifier pieces, not any substring", async () => {
    const owner = newOwner();
    const { id } = await store().createSession(owner);
    await store().appendEntries(owner, id, [
      make.user("i1", null, "call parseHTTPServerConfig with max_retry_count"),
      make.user("i2", "i1", "the walker walks"),
      make.user("i3", "i2", "naïve café straße Größe"),
    ]);
    const found = async (q: string) => (await store().search(owner, q)).map((hit) => hit.entryId).sort();
    // camelCase and acronym pieces, several pieces in a row, snake_case words, the identifier whole.
    for (const q of [
      "http",
      "Server",
      "ServerConfig",
      "server config",
      "retry",
      "retry_count",
      "parsehttpserverconfig",
    ]) {
      assert.deepEqual(await found(q), ["i1"], q);
    }
    assert.deepEqual(await found('"config with max"'), ["i1"]);
    // No part of a word that is not a piece, and no prefix: `walk` is not `walker` or `walks`.
    for (const q of ["erver", "arseHTTP", "walk", "retr"]) assert.deepEqual(await found(q), [], q);
    assert.deepEqual(await found("walker"), ["i2"]);
    // Letters beyond ASCII are letters; case folds, accents stay.
    assert.deepEqual(await found("GRÖSSE"), []);
    assert.deepEqual(await found("größe café"), ["i3"]);
    assert.deepEqual(await found("cafe"), []);
    const [hit] = await store().search(owner, '"server config"');
    assert.ok(hit?.snippet.includes(`${open}ServerConfig${close}`), hit?.snippet);
  });

  it("ranks by relevance, then newer first; limit and sessionId narrow it", async () => {
    const owner = newOwner();
    const older = await store().createSession(owner);
    const newer = await store().createSession(owner);
    await store().appendEntries(owner, older.id, [make.user("same-1", null, "identical twin text")]);
    await store().appendEntries(owner, newer.id, [make.user("same-2", null, "identical twin text")]);
    const hits = await store().search(owner, "twin");
    assert.deepEqual(
      hits.map((hit) => hit.sessionId),
      [newer.id, older.id],
    );
    assert.equal(hits[0]?.score, hits[1]?.score);
    assert.equal((await store().search(owner, "twin", { limit: 1 }))[0]?.sessionId, newer.id);
    const one = await store().search(owner, "twin", { sessionId: older.id });
    assert.deepEqual(
      one.map((hit) => hit.entryId),
      ["same-1"],
    );
  });

  it("never shows another owner's entries; another owner's session answers like a missing one", async () => {
    const [alice, bob] = [newOwner(), newOwner()];
    const a = await store().createSession(alice);
    const b = await store().createSession(bob);
    await store().appendEntries(alice, a.id, [make.user("alice-1", null, "shared secret phrase")]);
    await store().appendEntries(bob, b.id, [make.user("bob-1", null, "shared secret phrase")]);
    assert.deepEqual(
      (await store().search(alice, "secret")).map((hit) => hit.entryId),
      ["alice-1"],
    );
    assert.deepEqual(
      (await store().search(bob, "secret")).map((hit) => hit.entryId),
      ["bob-1"],
    );
    assert.deepEqual(await store().search(newOwner(), "secret"), []);
    const foreign = await rejectsWith(
      store().search(alice, "secret", { sessionId: b.id }),
      "session_not_found",
    );
    const missing = await rejectsWith(
      store().search(alice, "secret", { sessionId: "no-such-session" }),
      "session_not_found",
    );
    assert.equal(foreign.message.replace(b.id, "X"), missing.message.replace("no-such-session", "X"));
  });

  it("branch state follows the leaf at query time", async () => {
    const owner = newOwner();
    const { id } = await store().createSession(owner);
    await store().appendEntries(owner, id, [
      make.user("root", null, "fork root marker"),
      make.assistant("left", "root", "fork left answer"),
    ]);
    await store().appendEntries(owner, id, [make.assistant("right", "root", "fork right answer")]);
    const state = async () =>
      Object.fromEntries((await store().search(owner, "fork")).map((hit) => [hit.entryId, hit.branch]));
    assert.deepEqual(await state(), { root: "path", left: "abandoned", right: "path" });
    await store().setLeaf(owner, id, "left");
    assert.deepEqual(await state(), { root: "path", left: "path", right: "abandoned" });
    await store().setLeaf(owner, id, null);
    assert.deepEqual(await state(), { root: "abandoned", left: "abandoned", right: "abandoned" });
  });

  it("soft-deleted sessions only when asked; purge removes them from the index", async () => {
    const owner = newOwner();
    const { id } = await store().createSession(owner);
    await store().appendEntries(owner, id, [make.user("gone-1", null, "ephemeral words here")]);
    await store().deleteSession(owner, id);
    assert.deepEqual(await store().search(owner, "ephemeral"), []);
    await rejectsWith(store().search(owner, "ephemeral", { sessionId: id }), "session_not_found");
    assert.equal((await store().search(owner, "ephemeral", { includeDeleted: true })).length, 1);
    await store().restoreSession(owner, id);
    assert.equal((await store().search(owner, "ephemeral")).length, 1);
    await store().purgeSession(owner, id);
    assert.deepEqual(await store().search(owner, "ephemeral", { includeDeleted: true }), []);
    // The same id again, without those entries: nothing of the purged session is found.
    await store().createSession(owner, { id });
    assert.deepEqual(await store().search(owner, "ephemeral"), []);
    // Retention purges the index rows too.
    const old = await store().createSession(owner);
    await store().appendEntries(owner, old.id, [make.user("ret-1", null, "retention words")]);
    await store().deleteSession(owner, old.id);
    await store().purgeDeletedBefore(new Date(Date.now() + 1000));
    assert.deepEqual(await store().search(owner, "retention", { includeDeleted: true }), []);
  });

  it("imports and copies are indexed; a retried append indexes nothing twice", async () => {
    const owner = newOwner();
    const { id } = await store().createSession(owner);
    const batch = [make.user("imp-1", null, "imported needle text")];
    await store().appendEntries(owner, id, batch);
    await store().appendEntries(owner, id, batch); // a retry: skipped
    const copy = await store().importJsonl(owner, await store().exportJsonl(owner, id), { newId: true });
    const hits = await store().search(owner, "needle");
    assert.deepEqual(hits.map((hit) => hit.sessionId).sort(), [id, copy.id].sort());
    const other = newOwner();
    await store().importJsonl(other, await store().exportJsonl(owner, id));
    assert.equal((await store().search(other, "needle")).length, 1);
  });

  it("a long tool output is found by its head only; entries without text are never hits", async () => {
    const owner = newOwner();
    const { id } = await store().createSession(owner);
    const long = `headword ${"x".repeat(1024 * 1024)} tailword`;
    await store().appendEntries(owner, id, [
      make.user("q", null, "run the build"),
      toolResult("big", "q", long),
      make.assistant("thinking", "big", "", {
        content: [{ type: "thinking", thinking: "hiddenthought" }] as never,
      }),
    ]);
    assert.deepEqual(
      (await store().search(owner, "headword")).map((hit) => hit.entryId),
      ["big"],
    );
    assert.deepEqual(await store().search(owner, "tailword"), []);
    assert.deepEqual(await store().search(owner, "hiddenthought"), []);
  });

  it("refuses an empty query, a query of only short terms, and a bad limit", async () => {
    const owner = newOwner();
    await rejectsWith(store().search(owner, ""), "invalid_argument");
    await rejectsWith(store().search(owner, "   "), "invalid_argument");
    await rejectsWith(store().search(owner, "a b"), "invalid_argument");
    await rejectsWith(store().search(owner, "--- ... //"), "invalid_argument"); // no word at all
    await rejectsWith(store().search(owner, "a.b x-y"), "invalid_argument"); // no word of 3 letters
    await rejectsWith(store().search(owner, "word", { limit: 0 }), "invalid_argument");
    await rejectsWith(store().search(owner, "word", { sessionId: "../x" }), "invalid_argument");
  });
}
