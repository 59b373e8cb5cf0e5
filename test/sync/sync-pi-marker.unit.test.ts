import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import { isLeafMarker } from "../../src/core/entry.js";
import { SessionManager } from "../../src/session/session-manager.js";
import type { TestServer } from "../server/helpers.js";
import { messageMaker } from "../support/messages.js";
import { filesById, openInPi, readFile, syncOnce, syncWorld } from "./helpers.js";

const m = messageMaker();

/** Every entry the service holds for a session, in storage order. */
async function serviceEntries(server: TestServer, key: string, id: string) {
  const page = await server.call("GET", `/v1/sessions/${id}/entries?limit=1000`, { key });
  assert.equal(page.status, 200, page.text);
  return page.json.entries as Array<{
    id: string;
    type: string;
    customType?: string;
    parentId: string | null;
  }>;
}

describe("sync: pi appending under our leaf marker (in-process service on SQLite)", () => {
  const world = syncWorld("st-sync-marker-");
  const { rootA, rootB, stateA, stateB } = world;

  it("pushes the marker pi built on with pi's entries; the other root pulls them; pi reads both alike", async () => {
    const ours = SessionManager.create("/work/m", undefined, { root: rootA });
    for (let i = 0; i < 2; i++) {
      ours.appendMessage(m.user(`question ${i}`));
      ours.appendMessage(m.assistant(`answer ${i}`));
    }
    const id = ours.getSessionId();
    const pathA = ours.getSessionFile() as string;
    ours.close();
    await syncOnce(rootA, world.server.url, world.key, stateA);
    await syncOnce(rootB, world.server.url, world.key, stateB);

    // A rewinds to the first answer (our leaf marker is now the file's last line), then pi 0.73.1
    // continues the file: its leaf is the last line, so its entries hang under our marker.
    const rewind = SessionManager.open(pathA, undefined, undefined, { root: rootA });
    const firstAnswer = rewind.getEntries()[1]?.id as string;
    rewind.branch(firstAnswer);
    rewind.close();
    const pi = PiSessionManager.open(pathA);
    const marker = pi.getLeafEntry() as { id: string; type: string; customType?: string; parentId: string };
    assert.ok(isLeafMarker(marker as never), "the file ends in our leaf marker");
    assert.equal(marker.parentId, firstAnswer);
    const piIds = [
      pi.appendMessage(m.user("pi asks again") as never),
      pi.appendMessage(m.assistant("pi answers") as never),
    ];

    const pushed = await syncOnce(rootA, world.server.url, world.key, stateA);
    assert.equal(pushed.report.errors, 0, JSON.stringify(pushed.report.changed));
    assert.equal(pushed.report.pushed, 3, "the marker pi built on and pi's two entries");
    const there = await serviceEntries(world.server, world.key, id);
    assert.deepEqual(
      there.slice(-3).map((e) => e.id),
      [marker.id, ...piIds],
    );
    assert.equal(there.at(-2)?.parentId, marker.id);

    const pulled = await syncOnce(rootB, world.server.url, world.key, stateB);
    assert.equal(pulled.report.pulled, 3);
    const pathB = filesById(rootB).get(id) as string;
    const ids = (path: string) => readFile(path).entries.map((e) => e.id);
    assert.deepEqual(new Set(ids(pathB)), new Set(ids(pathA)));

    // Each copy keeps its leaf (A's is a rewind, not a fast-forward); make them meet, then pi reads
    // the same context from both files.
    await syncOnce(rootA, world.server.url, world.key, stateA, { leaf: "local" });
    await syncOnce(rootB, world.server.url, world.key, stateB, { leaf: "remote" });
    assert.equal(openInPi(pathA).leaf, piIds[1]);
    assert.equal(openInPi(pathB).leaf, piIds[1]);
    const contextA = PiSessionManager.open(pathA).buildSessionContext();
    const contextB = PiSessionManager.open(pathB).buildSessionContext();
    assert.deepEqual(contextB, contextA);
    assert.equal(contextA.messages.length, 4, "question 0, answer 0, then pi's two messages");
  });

  it("a trailing marker nobody built on stays local", async () => {
    const id = [...filesById(rootA).keys()][0] as string;
    const pathA = filesById(rootA).get(id) as string;
    const rewind = SessionManager.open(pathA, undefined, undefined, { root: rootA });
    rewind.branch(rewind.getEntries()[0]?.id as string);
    rewind.close();
    const run = await syncOnce(rootA, world.server.url, world.key, stateA);
    assert.equal(run.report.pushed, 0);
    const markers = (await serviceEntries(world.server, world.key, id)).filter((e) =>
      isLeafMarker(e as never),
    );
    assert.equal(markers.length, 1, "only the marker pi built on");
  });

  it("the public append still refuses markers; the sync append takes one only with a child", async () => {
    const id = [...filesById(rootA).keys()][0] as string;
    const parentId = (await serviceEntries(world.server, world.key, id))[0]?.id as string;
    const marker = {
      type: "custom",
      customType: "sessiontree.leaf",
      id: "mk000001",
      parentId,
      timestamp: "2026-01-01T00:00:00.000Z",
    };
    const child = {
      type: "message",
      id: "ch000001",
      parentId: marker.id,
      timestamp: "2026-01-01T00:00:01.000Z",
      message: m.user("under the marker"),
    };
    const publicAppend = await world.server.call("POST", `/v1/sessions/${id}/entries`, {
      key: world.key,
      body: { entries: [marker, child] },
    });
    assert.equal(publicAppend.status, 400);
    assert.equal(publicAppend.json.code, "invalid_entry");
    const alone = await world.server.call("POST", `/v1/sync/sessions/${id}/entries`, {
      key: world.key,
      body: { entries: [marker] },
    });
    assert.equal(alone.status, 400);
    assert.equal(alone.json.code, "invalid_entry");
    const withChild = await world.server.call("POST", `/v1/sync/sessions/${id}/entries`, {
      key: world.key,
      body: { entries: [marker, child] },
    });
    assert.equal(withChild.status, 200, withChild.text);
    assert.deepEqual(withChild.json.appended, [marker.id, child.id]);
  });
});
