import assert from "node:assert/strict";
import { appendFileSync } from "node:fs";
import { describe, it } from "node:test";
import { projectContext } from "../../src/core/context.js";
import { SessionFile } from "../../src/file/session-file.js";
import { SessionManager } from "../../src/session/session-manager.js";
import { messageMaker } from "../support/messages.js";
import { filesById, openInPi, readFile, syncOnce, syncWorld } from "./helpers.js";

const m = messageMaker();

/** The context our reader builds from a file. */
function fileContext(path: string) {
  const file = SessionFile.open(path);
  try {
    return projectContext(file.tree.getBranch());
  } finally {
    file.close();
  }
}

describe("sync: a file with entries another writer named otherwise (in-process service on SQLite)", () => {
  const world = syncWorld("st-sync-malformed-");

  it("pushes every entry, the malformed ones too; the other root and pi read the same history", async () => {
    const { rootA, rootB, stateA, stateB } = world;
    const ours = SessionManager.create("/work/m", undefined, { root: rootA });
    ours.appendMessage(m.user("q1"));
    const answer = ours.appendMessage(m.assistant("a1"));
    const id = ours.getSessionId();
    const pathA = ours.getSessionFile() as string;
    ours.close();
    // As a port of pi writes them: its own fields in snake_case. pi keeps every line that parses,
    // and so does our file reader (as malformed entries); before, the service refused the batch and
    // nothing of the session reached it.
    const at = new Date().toISOString();
    const lines = [
      { type: "thinking_level_change", id: "t1", parentId: answer, timestamp: at, thinking_level: "high" },
      { type: "message", id: "u2", parentId: "t1", timestamp: at, message: m.user("q2") },
      { type: "message", id: "a2", parentId: "u2", timestamp: at, message: m.assistant("a2") },
      // No timestamp: malformed too, and its message reaches the model, as in pi.
      { type: "message", id: "u3", parentId: "a2", message: m.user("q3") },
    ];
    appendFileSync(pathA, lines.map((line) => `${JSON.stringify(line)}\n`).join(""));

    const pushed = await syncOnce(rootA, world.server.url, world.key, stateA);
    assert.equal(pushed.report.errors, 0, JSON.stringify(pushed.report.changed));
    assert.equal(pushed.report.pushed, 6);
    const context = await world.server.call("GET", `/v1/sessions/${id}/context`, { key: world.key });
    assert.equal(context.status, 200, context.text);
    assert.deepEqual(context.json.messages, fileContext(pathA).messages);
    assert.equal(context.json.thinkingLevel, "off", "nothing is taken from the malformed entry");

    const pulled = await syncOnce(rootB, world.server.url, world.key, stateB);
    assert.equal(pulled.report.errors, 0, JSON.stringify(pulled.report.changed));
    const pathB = filesById(rootB).get(id) as string;
    assert.deepEqual(readFile(pathB), readFile(pathA));
    assert.deepEqual(openInPi(pathB), openInPi(pathA));
    assert.equal(openInPi(pathB).messages, 5);
    assert.equal(fileContext(pathB).messages.length, 5);
  });

  it("the public append still refuses a malformed entry", async () => {
    const created = await world.server.call("POST", "/v1/sessions", { key: world.key, body: {} });
    assert.equal(created.status, 201, created.text);
    const entry = { type: "model_change", model: "openai/gpt-5.2" };
    const res = await world.server.call("POST", `/v1/sessions/${created.json.id}/entries`, {
      key: world.key,
      body: { entries: [entry] },
    });
    assert.equal(res.status, 400, res.text);
    assert.equal(res.json.code, "invalid_entry");
  });
});
