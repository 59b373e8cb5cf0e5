import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import { encodeCwd } from "../../src/file/paths.js";
import { cliEnv, FIXTURES, hasAnsi, runScenario, tempWorkspace } from "./helpers.js";

const LARGE_ID = "d703a1a9-1b7b-4fb1-b512-c9738b1fe617";
const COMPACT_ID = "ffae836b-9420-4060-ac13-7745215f90ff";
const PI_CWD = "/Users/badlogic/workspaces/pi-mono";
const EMPTY_ID = "d7000000-0000-7000-8000-000000000000";

describe("reading commands on the pi fixtures: ls, tree, show, export", () => {
  const ws = tempWorkspace();
  let r: ReturnType<typeof runScenario>;
  let largePath: string;

  before(() => {
    // Our root holds both fixtures as they are (v1) plus an empty session; a pi agent dir holds one.
    const ours = join(ws.root, "sessions", "Users-badlogic-workspaces-pi%2Dmono");
    mkdirSync(ours, { recursive: true });
    largePath = join(ours, `2025-11-20T23-33-50-805Z_${LARGE_ID}.jsonl`);
    copyFileSync(join(FIXTURES, "large-session.jsonl"), largePath);
    copyFileSync(
      join(FIXTURES, "before-compaction.jsonl"),
      join(ours, `2025-12-09T00-53-29-825Z_${COMPACT_ID}.jsonl`),
    );
    const header = {
      type: "session",
      version: 3,
      id: EMPTY_ID,
      timestamp: "2026-01-01T00:00:00.000Z",
      cwd: ws.dir,
    };
    const emptyDir = join(ws.root, "sessions", encodeCwd(ws.dir));
    mkdirSync(emptyDir);
    writeFileSync(
      join(emptyDir, `2026-01-01T00-00-00-000Z_${EMPTY_ID}.jsonl`),
      `${JSON.stringify(header)}\n`,
    );
    const piDir = join(ws.dir, "pi-agent", "sessions", "--Users-badlogic-workspaces-pi-mono--");
    mkdirSync(piDir, { recursive: true });
    copyFileSync(
      join(FIXTURES, "large-session.jsonl"),
      join(piDir, `2025-11-20T23-33-50-805Z_${LARGE_ID}.jsonl`),
    );
    r = runScenario(ws.dir, [
      /* 0 */ { args: ["ls", "--all"] },
      /* 1 */ { args: ["ls", "--all", "--json"] },
      /* 2 */ { args: ["ls", "--all", "--search", "THEME.MD", "--json"] },
      /* 3 */ { args: ["ls", "--cwd", PI_CWD] },
      /* 4 */ { args: ["tree", "d703"] },
      /* 5 */ { args: ["tree", "d703", "--json"] },
      /* 6 */ { args: ["show", LARGE_ID, "--json"] },
      /* 7 */ { args: ["context", "d703", "--at", "placeholder"] },
      /* 8 */ { args: ["show", "ffae", "--json"] },
      /* 9 */ { args: ["export", "d703"] },
      /* 10 */ { args: ["export", "d703", "--json"] },
      /* 11 */ { args: ["export", "d703", "--html", "-o", "out.html"] },
      /* 12 */ { args: ["tree", "d703"], tty: true },
      /* 13 */ { args: ["tree"] },
      /* 14 */ { args: ["show"] },
      /* 15 */ { args: ["ls", "--pi", join(ws.dir, "pi-agent"), "--all", "--json"] },
      /* 16 */ { args: ["tree", "nope"] },
      /* 17 */ { args: ["tree", "nope", "--json"] },
      /* 18 */ { args: ["tree", "d7"] },
      /* 19 */ { args: ["show", "--at", "zzz", "d703"] },
      /* 20 */ { args: ["tree", join(ws.dir, "missing.jsonl")] },
      /* 21 */ { args: ["export", "d703", "--format", "pdf"] },
      /* 22 */ { args: ["ls", "--all", "-n", "1", "--json"] },
      /* 23 */ { args: ["ls", "--limit", "many"] },
      /* 24 */ { args: ["tree", "d703", "--collapse", "0"] },
      /* 25 */ { args: ["tree", "d703"], tty: true, env: { ...cliEnv(ws.dir), NO_COLOR: "1" } },
    ]);
  });
  after(() => ws.cleanup());

  it("ls lists every session with name, first message, counts and time; --json has the same", () => {
    assert.equal(r[0]?.code, 0);
    assert.match(r[0]?.stdout ?? "", new RegExp(PI_CWD));
    assert.match(r[0]?.stdout ?? "", /d703a1a9 {2}2025-11-21 02:13 {2}914 msgs {2}1018 entries {2}1 br/);
    const rows = JSON.parse(r[1]?.stdout ?? "") as Array<Record<string, unknown>>;
    assert.equal(rows.length, 3);
    const large = rows.find((row) => row.id === LARGE_ID);
    assert.equal(large?.firstMessage, "/mode");
    assert.equal(large?.messageCount, 914);
    assert.equal(large?.entryCount, 1018);
    assert.equal(large?.branchCount, 1);
    assert.equal(large?.cwd, PI_CWD);
    const empty = rows.find((row) => row.id === EMPTY_ID);
    assert.equal(empty?.entryCount, 0);
    assert.equal(empty?.branchCount, 0);
  });

  it("ls --search matches message text case-insensitively; ls without --all is per directory", () => {
    const found = JSON.parse(r[2]?.stdout ?? "") as Array<{ id: string }>;
    assert.deepEqual(found.map((f) => f.id).sort(), [LARGE_ID]);
    assert.equal(r[3]?.stdout.split("\n").filter((l) => l.includes("msgs")).length, 2);
  });

  it("tree draws the fixture with long runs collapsed and the leaf marked", () => {
    const text = r[4]?.stdout ?? "";
    assert.equal(r[4]?.code, 0);
    assert.match(text, /● \w{8} user \/mode/);
    assert.match(text, /┆ … \d+ more entries …/);
    assert.match(text, /◉ \w{8} asst Oh wait, these errors look like we have API mismatches!.*← leaf/);
    assert.ok(text.split("\n").length < 20, "a 1,018-entry linear session fits a screen");
    assert.match(r[4]?.stderr ?? "", /note: a v1 file has no entry ids/);
    assert.equal(hasAnsi(text), false, "no colours when stdout is not a terminal");
    assert.equal(hasAnsi(r[12]?.stdout ?? ""), true, "colours on a terminal");
    assert.equal(hasAnsi(r[25]?.stdout ?? ""), false, "NO_COLOR wins on a terminal");
  });

  it("tree --json lists every node with parent, children, path and leaf flags", () => {
    const tree = JSON.parse(r[5]?.stdout ?? "");
    assert.equal(tree.sessionId, LARGE_ID);
    assert.equal(tree.nodes.length, 1018);
    const leaf = tree.nodes.filter((n: { isLeaf: boolean }) => n.isLeaf);
    assert.equal(leaf.length, 1);
    assert.equal(leaf[0].id, tree.leafId);
    assert.ok(tree.nodes.every((n: { onPath: boolean }) => n.onPath));
    assert.deepEqual(Object.keys(tree.nodes[0]).sort(), [
      "children",
      "id",
      "isLeaf",
      "kind",
      "label",
      "onPath",
      "parentId",
      "tag",
      "text",
      "timestamp",
      "type",
    ]);
  });

  it("show --json is the context pi builds from the same file", () => {
    const ours = JSON.parse(r[6]?.stdout ?? "");
    const pi = PiSessionManager.open(largePath).buildSessionContext();
    assert.equal(ours.messages.length, 914);
    assert.equal(ours.messages.length, pi.messages.length);
    assert.deepEqual(ours.model, pi.model);
    assert.equal(ours.thinkingLevel, pi.thinkingLevel);
    assert.deepEqual(
      ours.messages.map((m: { role: string }) => m.role),
      pi.messages.map((m) => m.role),
    );
    const compact = JSON.parse(r[8]?.stdout ?? "");
    const piCompact = PiSessionManager.open(
      join(
        ws.root,
        "sessions",
        "Users-badlogic-workspaces-pi%2Dmono",
        `2025-12-09T00-53-29-825Z_${COMPACT_ID}.jsonl`,
      ),
    );
    assert.deepEqual(compact.messages, JSON.parse(JSON.stringify(piCompact.buildSessionContext().messages)));
    assert.equal(compact.compaction?.keptFound, true);
  });

  it("export writes markdown of the branch, a JSON document, and the viewer's HTML", () => {
    assert.match(r[9]?.stdout ?? "", /^# Session d703a1a9/);
    assert.match(r[9]?.stdout ?? "", /## User\n\n\/mode/);
    const doc = JSON.parse(r[10]?.stdout ?? "");
    assert.equal(doc.format, "sessiontree-export");
    assert.equal(doc.entries.length, 1018);
    assert.equal(doc.branch.length, 1018);
    assert.equal(doc.context.messages.length, 914);
    assert.equal(r[11]?.code, 0);
    const html = readFileSync(join(ws.dir, "out.html"), "utf8");
    assert.match(html, /<html/i);
    assert.ok(html.includes(LARGE_ID));
  });

  it("with no session named, tree and show use the latest session of the current directory", () => {
    assert.equal(r[13]?.code, 0);
    assert.match(r[13]?.stdout ?? "", /\(empty session\)/);
    assert.equal(r[14]?.code, 0);
    assert.match(r[14]?.stdout ?? "", /0 messages/);
  });

  it("--pi reads a pi agent directory", () => {
    const rows = JSON.parse(r[15]?.stdout ?? "");
    assert.equal(rows.length, 1);
    assert.equal(rows[0].id, LARGE_ID);
  });

  it("a session that does not exist is exit 1 with code session_not_found; ambiguity and bad options are 2", () => {
    assert.equal(r[16]?.code, 1);
    assert.match(r[16]?.stderr ?? "", /\[session_not_found\]/);
    assert.equal(JSON.parse(r[17]?.stdout ?? "").error.code, "session_not_found");
    assert.equal(r[18]?.code, 2, "prefix d7 matches two sessions");
    assert.match(r[18]?.stderr ?? "", /matches 2 sessions/);
    assert.equal(r[19]?.code, 1);
    assert.match(r[19]?.stderr ?? "", /\[entry_not_found\]/);
    assert.equal(r[20]?.code, 1);
    assert.equal(r[21]?.code, 2);
    assert.equal(JSON.parse(r[22]?.stdout ?? "").length, 1);
    assert.equal(r[23]?.code, 2);
    assert.match(r[23]?.stderr ?? "", /expected a whole number/);
    assert.equal(r[24]?.stdout.split("\n").length, 1018 + 2, "--collapse 0 shows every entry");
  });
});
