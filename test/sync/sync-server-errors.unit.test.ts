import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { SessionTreeClient } from "../../src/client/client.js";
import { SessionTreeApiError } from "../../src/client/errors.js";
import type { SyncRemote } from "../../src/sync/session-sync.js";
import { syncRoot } from "../../src/sync/sync.js";
import { makeSession, syncWorld } from "./helpers.js";

// A 500 about one session (its payload's blob damaged in the service's storage, say) must not
// stop a sync of every other session, run after run; a service that fails everything must still
// end the run rather than be asked about every session.

type Calls = Pick<SyncRemote, "getSession" | "readEntries" | "syncAppend" | "setLeaf" | "putSyncSession">;
const PER_SESSION: Array<keyof Calls> = [
  "getSession",
  "readEntries",
  "syncAppend",
  "setLeaf",
  "putSyncSession",
];

/** The real client, whose calls about the sessions `failing` says fail answer a 500. */
function failingFor(remote: SessionTreeClient, failing: (id: string) => boolean): SyncRemote {
  const wrapped: Record<string, unknown> = { syncState: remote.syncState.bind(remote) };
  for (const name of PER_SESSION) {
    const call = (remote[name] as (...args: unknown[]) => Promise<unknown>).bind(remote);
    wrapped[name] = (id: string, ...rest: unknown[]) =>
      failing(id)
        ? Promise.reject(new SessionTreeApiError(500, "internal", "Internal server error"))
        : call(id, ...rest);
  }
  return wrapped as unknown as SyncRemote;
}

describe("sync: a server error about one session", () => {
  const world = syncWorld("st-sync-5xx-");

  it("is reported with that session, and the other sessions sync", async () => {
    const root = join(world.dir, "one-damaged");
    const sessions = [1, 2, 3, 4].map((i) => makeSession(root, `/work/p${i}`, 2));
    const damaged = sessions[1]?.id as string;
    const client = new SessionTreeClient({ baseUrl: world.server.url, token: world.key });
    const report = await syncRoot({
      root,
      remote: failingFor(client, (id) => id === damaged),
      server: world.server.url,
      credentialId: "test",
      statePath: join(world.dir, "one-damaged-state", "state.json"),
    });
    assert.equal(report.errors, 1);
    const failed = report.changed.find((session) => session.id === damaged);
    assert.equal(failed?.error?.code, "internal");
    for (const { id } of sessions.filter((session) => session.id !== damaged)) {
      const answer = await world.server.call("GET", `/v1/sessions/${id}`, { key: world.key });
      assert.equal(answer.status, 200, `session ${id} reached the service`);
    }
    assert.equal(report.pushed, 3 * 4, "the three others' entries");
  });

  it("a service failing every session ends the run after a few, with its error", async () => {
    const root = join(world.dir, "all-failing");
    for (const i of [1, 2, 3, 4, 5, 6]) makeSession(root, `/work/q${i}`, 1);
    const client = new SessionTreeClient({ baseUrl: world.server.url, token: world.key });
    const asked = new Set<string>();
    const run = syncRoot({
      root,
      remote: failingFor(client, (id) => {
        asked.add(id);
        return true;
      }),
      server: world.server.url,
      credentialId: "test",
      statePath: join(world.dir, "all-failing-state", "state.json"),
    });
    await assert.rejects(
      run,
      (error: unknown) => error instanceof SessionTreeApiError && error.status === 500,
    );
    assert.equal(asked.size, 3, "three sessions failed in a row, then the run ended");
  });

  it("a 503 (the service unavailable) ends the run at once", async () => {
    const root = join(world.dir, "unavailable");
    for (const i of [1, 2, 3]) makeSession(root, `/work/r${i}`, 1);
    const client = new SessionTreeClient({ baseUrl: world.server.url, token: world.key });
    const asked = new Set<string>();
    const remote = failingFor(client, () => false);
    const unavailable = { ...remote } as Record<string, unknown>;
    for (const name of PER_SESSION)
      unavailable[name] = (id: string) => {
        asked.add(id);
        return Promise.reject(new SessionTreeApiError(503, "unavailable", "Service unavailable"));
      };
    const run = syncRoot({
      root,
      remote: unavailable as unknown as SyncRemote,
      server: world.server.url,
      credentialId: "test",
      statePath: join(world.dir, "unavailable-state", "state.json"),
    });
    await assert.rejects(
      run,
      (error: unknown) => error instanceof SessionTreeApiError && error.status === 503,
    );
    assert.equal(asked.size, 1);
  });
});
