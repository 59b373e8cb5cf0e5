import assert from "node:assert/strict";
import { it } from "node:test";
import type { SessionStore } from "../../../src/store/store.js";
import { chain, newOwner, rejectsWith, type SpecContext } from "./helpers.js";

type Probe = (store: SessionStore, owner: string, id: string) => Promise<unknown>;

/** Every session-scoped call, as another owner would make it. */
const PROBES: Record<string, Probe> = {
  loadSession: (s, o, id) => s.loadSession(o, id, { includeDeleted: true }),
  getSummary: (s, o, id) => s.getSummary(o, id),
  appendEntries: (s, o, id) => s.appendEntries(o, id, chain("intruder", 1)),
  setLeaf: (s, o, id) => s.setLeaf(o, id, "i-0"),
  readBranch: (s, o, id) => s.readBranch(o, id),
  readEntries: (s, o, id) => s.readEntries(o, id),
  deleteSession: (s, o, id) => s.deleteSession(o, id),
  restoreSession: (s, o, id) => s.restoreSession(o, id),
  purgeSession: (s, o, id) => s.purgeSession(o, id),
  exportJsonl: (s, o, id) => s.exportJsonl(o, id),
};

export function isolationSpec(ctx: SpecContext): void {
  it("answers another owner's session exactly like a missing one, for every call", async () => {
    const owner = newOwner();
    const { id } = await ctx.store().createSession(owner);
    await ctx.store().appendEntries(owner, id, chain("i", 2));
    const before = await ctx.store().loadSession(owner, id);
    const missing = `${id.slice(0, -4)}ffff` === id ? `${id.slice(0, -4)}eeee` : `${id.slice(0, -4)}ffff`;
    for (const [name, probe] of Object.entries(PROBES)) {
      const stranger = await rejectsWith(probe(ctx.store(), newOwner(), id), "session_not_found");
      const absent = await rejectsWith(probe(ctx.store(), owner, missing), "session_not_found");
      assert.equal(stranger.constructor, absent.constructor, name);
      assert.equal(stranger.message.replace(id, "<id>"), absent.message.replace(missing, "<id>"), name);
    }
    assert.deepEqual(await ctx.store().loadSession(owner, id), before);
  });

  it("never lists another owner's sessions, nor finds them by search", async () => {
    const [alice, bob] = [newOwner(), newOwner()];
    await ctx.store().createSession(alice, { name: "alice secret plans" });
    const page = await ctx.store().listSessions(bob, { search: "secret" });
    assert.deepEqual(page.items, []);
    assert.deepEqual((await ctx.store().listSessions(bob, { state: "all" })).items, []);
    assert.equal((await ctx.store().listSessions(alice, { search: "secret" })).items.length, 1);
  });
}
