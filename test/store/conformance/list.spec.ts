import assert from "node:assert/strict";
import { it } from "node:test";
import type { SessionSummary } from "../../../src/store/store.js";
import { make, newOwner, rejectsWith, type SpecContext, sleep } from "./helpers.js";

export function listSpec(ctx: SpecContext): void {
  async function listAll(owner: string, limit: number, extra = {}) {
    const pages: SessionSummary[][] = [];
    let cursor: string | null = null;
    do {
      const page = await ctx.store().listSessions(owner, { limit, cursor, ...extra });
      pages.push(page.items);
      cursor = page.nextCursor;
    } while (cursor !== null && pages.length < 50);
    return pages;
  }

  it("lists newest first by last modification", async () => {
    const owner = newOwner();
    const a = await ctx.store().createSession(owner, { id: "list-a" });
    await sleep(3);
    await ctx.store().createSession(owner, { id: "list-b" });
    await sleep(3);
    await ctx.store().createSession(owner, { id: "list-c" });
    await sleep(3);
    await ctx.store().appendEntries(owner, a.id, [make.user("m", null, "touch a")]);
    const page = await ctx.store().listSessions(owner);
    assert.deepEqual(
      page.items.map((s) => s.id),
      ["list-a", "list-c", "list-b"],
    );
    assert.equal(page.nextCursor, null);
    assert.equal(page.items[0]?.firstMessage, "touch a");
    assert.equal(page.items[0]?.entryCount, 1);
  });

  it("pages with an opaque cursor: every session once, in order", async () => {
    const owner = newOwner();
    const created: string[] = [];
    for (let i = 0; i < 7; i++) created.push((await ctx.store().createSession(owner)).id);
    const pages = await listAll(owner, 3);
    assert.deepEqual(
      pages.map((p) => p.length),
      [3, 3, 1],
    );
    const listed = pages.flat();
    assert.deepEqual(new Set(listed.map((s) => s.id)), new Set(created));
    for (let i = 1; i < listed.length; i++) {
      const [prev, next] = [listed[i - 1] as SessionSummary, listed[i] as SessionSummary];
      const ordered =
        prev.modifiedAt > next.modifiedAt || (prev.modifiedAt === next.modifiedAt && prev.id > next.id);
      assert.ok(ordered, `${prev.id} must come before ${next.id}`);
    }
  });

  it("searches the name and the first user message, case-insensitively", async () => {
    const owner = newOwner();
    const named = await ctx.store().createSession(owner, { name: "Refactor the Parser" });
    const asked = await ctx.store().createSession(owner);
    await ctx
      .store()
      .appendEntries(owner, asked.id, [
        make.user("q", null, "Why does the PARSER fail?"),
        make.user("q2", "q", "zebra later message"),
      ]);
    await ctx.store().createSession(owner, { name: "unrelated" });
    const found = await ctx.store().listSessions(owner, { search: "parser" });
    assert.deepEqual(new Set(found.items.map((s) => s.id)), new Set([named.id, asked.id]));
    assert.deepEqual((await ctx.store().listSessions(owner, { search: "ZEBRA" })).items, []);
    assert.deepEqual((await ctx.store().listSessions(owner, { search: "%" })).items, []);
    assert.equal((await ctx.store().listSessions(owner, { search: "Why does" })).items.length, 1);
    const paged = await listAll(owner, 1, { search: "parser" });
    assert.equal(paged.flat().length, 2);
  });

  it("filters by state: active (default), deleted, all", async () => {
    const owner = newOwner();
    const kept = await ctx.store().createSession(owner);
    const gone = await ctx.store().createSession(owner);
    await ctx.store().deleteSession(owner, gone.id);
    const idsOf = async (state?: "active" | "deleted" | "all") =>
      (await ctx.store().listSessions(owner, state ? { state } : {})).items.map((s) => s.id).sort();
    assert.deepEqual(await idsOf(), [kept.id]);
    assert.deepEqual(await idsOf("deleted"), [gone.id]);
    assert.deepEqual(await idsOf("all"), [kept.id, gone.id].sort());
  });

  it("refuses a forged cursor and a bad limit", async () => {
    await rejectsWith(ctx.store().listSessions(newOwner(), { cursor: "not-a-cursor" }), "invalid_argument");
    await rejectsWith(ctx.store().listSessions(newOwner(), { limit: 0 }), "invalid_argument");
  });
}
