import assert from "node:assert/strict";
import { mkdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { encodeCwd } from "../../src/file/paths.js";
import { readJsonl, runScenario, tempWorkspace } from "./helpers.js";

// Issue 13 item 3: `sessiontree name ffae` (meant as a session prefix) renamed another session, the
// newest by file time, and printed only "ffae".
const MEANT = "ffae836b-0000-4000-8000-000000000001"; // the session the user meant
const TOUCHED = "7a3c0de1-0000-4000-8000-000000000002"; // old activity, newest file time
const LATEST = "0be5f00d-0000-4000-8000-000000000003"; // newest activity: first in `ls`

/** A v3 session of `cwd` with two messages at `day`; returns its file. */
function writeSession(folder: string, cwd: string, id: string, day: string): string {
  const time = `${day}T10:00:00.000Z`;
  const path = join(folder, `${day}T10-00-00-000Z_${id}.jsonl`);
  const at = Date.parse(time);
  const lines = [
    { type: "session", version: 3, id, timestamp: time, cwd },
    {
      type: "message",
      id: `${id.slice(0, 4)}0001`,
      parentId: null,
      timestamp: time,
      message: { role: "user", content: `hello from ${id.slice(0, 8)}`, timestamp: at },
    },
    {
      type: "message",
      id: `${id.slice(0, 4)}0002`,
      parentId: `${id.slice(0, 4)}0001`,
      timestamp: time,
      message: {
        role: "assistant",
        content: [{ type: "text", text: "hi" }],
        provider: "p",
        model: "m",
        stopReason: "stop",
        timestamp: at + 1000,
      },
    },
  ];
  writeFileSync(path, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
  return path;
}

describe("writing commands say what they wrote to, and pick the session ls shows first", () => {
  const ws = tempWorkspace();
  const paths: Record<string, string> = {};
  let r: ReturnType<typeof runScenario>;
  let touchedBefore: string;

  before(() => {
    const folder = join(ws.root, "sessions", encodeCwd(ws.dir));
    mkdirSync(folder, { recursive: true });
    paths[MEANT] = writeSession(folder, ws.dir, MEANT, "2025-03-01");
    paths[TOUCHED] = writeSession(folder, ws.dir, TOUCHED, "2025-01-01");
    paths[LATEST] = writeSession(folder, ws.dir, LATEST, "2025-06-01");
    // File times tell another story than activity: the oldest conversation was written to last.
    utimesSync(paths[LATEST] as string, new Date("2025-06-02"), new Date("2025-06-02"));
    utimesSync(paths[MEANT] as string, new Date("2025-06-03"), new Date("2025-06-03"));
    utimesSync(paths[TOUCHED] as string, new Date(), new Date());
    touchedBefore = readFileSync(paths[TOUCHED] as string, "utf8");
    r = runScenario(ws.dir, [
      /* 0 */ { args: ["name", "ffae"] },
      /* 1 */ { args: ["ls", "--json"] },
      /* 2 */ { args: ["show", "--json"] },
      /* 3 */ { args: ["name", "Parser", "work"] },
      /* 4 */ { args: ["name", "ffae", "--force", "--json"] },
      /* 5 */ { args: ["label", "0be50002", "7a3c0de1"] },
      /* 6 */ { args: ["label", "0be50002", "good"] },
      /* 7 */ { args: ["checkout", "ffae"] },
      /* 8 */ { args: ["checkout", "0be50001", "--json"] },
      /* 9 */ { args: ["checkout", "0be50002"] },
      /* 10 */ { args: ["fork", "7a3c", "--json"] },
      /* 11 */ { args: ["fork", "7a3c"] },
      /* 12 */ { args: ["repair", "ffae", "--json"] },
      /* 13 */ { args: ["migrate", "ffae", "--json"] },
      /* 14 */ { args: ["name", "ffae", "--json"] },
    ]);
  });
  after(() => ws.cleanup());

  it("a name that is the start of a session id is refused (exit 2) and nothing is written", () => {
    assert.equal(r[0]?.code, 2, r[0]?.stdout);
    assert.match(r[0]?.stderr ?? "", new RegExp(`"ffae" looks like the id of session ${MEANT}`));
    assert.match(r[0]?.stderr ?? "", /-s ffae/);
    assert.match(r[0]?.stderr ?? "", /--force/);
    assert.equal(JSON.parse(r[14]?.stdout ?? "").error.code, "usage");
    assert.equal(readFileSync(paths[TOUCHED] as string, "utf8"), touchedBefore, "nothing was written");
    assert.ok(
      !readJsonl(paths[TOUCHED] as string).some((e) => e.type === "session_info"),
      "the session written last by file time was not renamed",
    );
  });

  it("the latest session is the first `ls` lists (newest activity), not the newest file", () => {
    const listed = JSON.parse(r[1]?.stdout ?? "") as Array<{ id: string }>;
    assert.deepEqual(
      listed.map((row) => row.id),
      [LATEST, MEANT, TOUCHED],
    );
    assert.equal(JSON.parse(r[2]?.stdout ?? "").sessionId, LATEST);
  });

  it("name says which session and file it wrote to; --force accepts an id-like name", () => {
    assert.equal(r[3]?.code, 0, r[3]?.stderr);
    assert.match(r[3]?.stdout ?? "", /Named the session Parser work/);
    assert.ok(r[3]?.stdout.includes(`session ${LATEST} · ${paths[LATEST]}`), r[3]?.stdout);
    const forced = JSON.parse(r[4]?.stdout ?? "");
    assert.deepEqual(forced, { sessionId: LATEST, path: paths[LATEST], name: "ffae", written: true });
    const names = readJsonl(paths[LATEST] as string).filter((e) => e.type === "session_info");
    assert.deepEqual(
      names.map((e) => e.name),
      ["Parser work", "ffae"],
    );
  });

  it("label refuses an id-like label, and says where it wrote a good one", () => {
    assert.equal(r[5]?.code, 2);
    assert.match(
      r[5]?.stderr ?? "",
      new RegExp(`looks like the id of session ${TOUCHED} \\(.*\\), not a label`),
    );
    assert.equal(r[6]?.code, 0, r[6]?.stderr);
    assert.ok(r[6]?.stdout.includes(`session ${LATEST} · ${paths[LATEST]}`), r[6]?.stdout);
  });

  it("checkout of a session prefix says it is a session; checkout says where it moved the leaf", () => {
    assert.equal(r[7]?.code, 1);
    assert.match(
      r[7]?.stderr ?? "",
      new RegExp(`\\[entry_not_found\\].*"ffae" is the start of session ${MEANT}`),
    );
    const moved = JSON.parse(r[8]?.stdout ?? "");
    assert.equal(moved.sessionId, LATEST);
    assert.equal(moved.path, paths[LATEST]);
    assert.ok(r[9]?.stdout.includes(`session ${LATEST} · ${paths[LATEST]}`), r[9]?.stdout);
  });

  it("fork, repair and migrate name the session of every file they wrote", () => {
    const fork = JSON.parse(r[10]?.stdout ?? "");
    assert.equal(fork.sourceSessionId, TOUCHED);
    assert.equal(fork.sourcePath, paths[TOUCHED]);
    assert.ok(r[11]?.stdout.includes(`from session ${TOUCHED} · ${paths[TOUCHED]}`), r[11]?.stdout);
    assert.equal(JSON.parse(r[12]?.stdout ?? "").files[0].sessionId, MEANT);
    assert.equal(JSON.parse(r[13]?.stdout ?? "").files[0].sessionId, MEANT);
  });
});
