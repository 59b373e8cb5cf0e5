import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { encodeCwd } from "../../src/file/paths.js";
import { FIXTURES, runScenario, tempWorkspace } from "./helpers.js";

// Issue 13 item 10: what `ls` shows a person.
const TWIN_A = "abcdef01-2345-4000-8000-00000000000a";
const TWIN_B = "abcdef01-2399-4000-8000-00000000000b";
const LONE = "12345678-0000-4000-8000-000000000000";
const TOOLS_ONLY = "99999999-0000-4000-8000-000000000000";
const LARGE_ID = "d703a1a9-1b7b-4fb1-b512-c9738b1fe617";

function line(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}

/** A v3 session of `cwd` with the given messages, each a child of the one before. */
function writeSession(folder: string, cwd: string, id: string, messages: unknown[]): void {
  const time = "2025-05-01T10:00:00.000Z";
  let parentId: string | null = null;
  let text = line({ type: "session", version: 3, id, timestamp: time, cwd });
  messages.forEach((message, i) => {
    const entryId = `${id.slice(0, 6)}${String(i).padStart(2, "0")}`;
    text += line({ type: "message", id: entryId, parentId, timestamp: time, message });
    parentId = entryId;
  });
  writeFileSync(join(folder, `2025-05-01T10-00-00-000Z_${id}.jsonl`), text);
}

const user = (content: string, at: number) => ({ role: "user", content, timestamp: at });
const assistant = (text: string, at: number) => ({
  role: "assistant",
  content: [{ type: "text", text }],
  provider: "p",
  model: "m",
  stopReason: "stop",
  timestamp: at,
});

describe("ls: unique ids, aligned columns, counts that agree, searches that say what they found", () => {
  const ws = tempWorkspace();
  let r: ReturnType<typeof runScenario>;

  before(() => {
    const folder = join(ws.root, "sessions", encodeCwd(ws.dir));
    mkdirSync(folder, { recursive: true });
    const t = Date.parse("2025-05-01T10:00:00.000Z");
    writeSession(folder, ws.dir, TWIN_A, [
      user("fix the parser", t),
      assistant("The parser is fixed.", t + 1),
    ]);
    // Twelve messages: a count of two digits beside counts of one.
    writeSession(
      folder,
      ws.dir,
      TWIN_B,
      Array.from({ length: 12 }, (_, i) => user(`write the docs, part ${i}`, t + 2)),
    );
    writeSession(folder, ws.dir, LONE, [
      user("first question", t + 3),
      assistant(
        "Some long preamble that goes on and on before it says the Needle word and more after",
        t + 4,
      ),
      user("and the NEEDLE again", t + 5),
    ]);
    writeSession(folder, ws.dir, TOOLS_ONLY, [
      {
        role: "toolResult",
        toolCallId: "c1",
        toolName: "read",
        content: [{ type: "text", text: "x" }],
        isError: false,
        timestamp: t - 10,
      },
    ]);
    const pi = join(ws.root, "sessions", "Users-badlogic-workspaces-pi%2Dmono");
    mkdirSync(pi);
    copyFileSync(
      join(FIXTURES, "large-session.jsonl"),
      join(pi, `2025-11-20T23-33-50-805Z_${LARGE_ID}.jsonl`),
    );
    r = runScenario(ws.dir, [
      /* 0 */ { args: ["ls"] },
      /* 1 */ { args: ["ls", "--search", "no-such-text-anywhere"] },
      /* 2 */ { args: ["ls", "--search", "no-such-text-anywhere", "--json"] },
      /* 3 */ { args: ["ls", "--search", "needle", "--entries"] },
      /* 4 */ { args: ["ls", "--search", "needle", "--entries", "--json"] },
      /* 5 */ { args: ["ls", "--entries"] },
      /* 6 */ { args: ["migrate", LARGE_ID] },
      /* 7 */ { args: ["tree", LARGE_ID, "--json"] },
    ]);
    const target = JSON.parse(r[7]?.stdout ?? "").nodes[100].id as string;
    r.push(
      ...runScenario(ws.dir, [
        /* 8 */ { args: ["checkout", target, "-s", LARGE_ID] },
        /* 9 */ { args: ["ls", "--all", "--json"] },
        /* 10 */ { args: ["tree", LARGE_ID, "--json"] },
        /* 11 */ { args: ["tree", LARGE_ID] },
        /* 12 */ { args: ["ls", "--all"] },
      ]),
    );
  });
  after(() => ws.cleanup());

  it("ids that share 8 characters are shown as far as they differ; the others with 8", () => {
    const text = r[0]?.stdout ?? "";
    assert.equal(r[0]?.code, 0, r[0]?.stderr);
    const rows = text.trimEnd().split("\n");
    assert.equal(rows.length, 4, text);
    const ids = rows.map((row) => row.split(" ")[0]);
    assert.deepEqual(new Set(ids), new Set(["abcdef01-234", "abcdef01-239", "12345678", "99999999"]));
    // Each shown prefix is one `tree` accepts: it names exactly one session.
    const shown = runScenario(ws.dir, [{ args: ["tree", "abcdef01-239", "--json"] }]);
    assert.equal(JSON.parse(shown[0]?.stdout ?? "").sessionId, TWIN_B);
  });

  it("columns line up whatever the id length", () => {
    const rows = (r[0]?.stdout ?? "").trimEnd().split("\n");
    for (const column of [/2025-05-01 10:00/, / msgs/, / entries/, / br/]) {
      const positions = new Set(rows.map((row) => row.search(column)));
      assert.equal(positions.size, 1, `${column} starts at one column: ${rows.join("\n")}`);
    }
  });

  it("a session with messages but no user text does not say (no messages)", () => {
    const row = (r[0]?.stdout ?? "").split("\n").find((l) => l.startsWith("99999999")) ?? "";
    assert.match(row, /1 msgs/);
    assert.doesNotMatch(row, /\(no messages\)/);
  });

  it("entries agree with tree's count after a checkout (its leaf marker is not an entry)", () => {
    assert.equal(r[8]?.code, 0, r[8]?.stderr);
    const row = (
      JSON.parse(r[9]?.stdout ?? "") as Array<{ id: string; entryCount: number; messageCount: number }>
    ).find((x) => x.id === LARGE_ID);
    const tree = JSON.parse(r[10]?.stdout ?? "");
    assert.equal(row?.entryCount, tree.nodes.length);
    assert.equal(row?.messageCount, 914);
    const treeCount = Number(/(\d+) entries ·/.exec(r[11]?.stdout ?? "")?.[1]);
    assert.ok(
      (r[12]?.stdout ?? "").includes(`914 msgs  ${treeCount} entries`),
      `ls and tree show one entry count: ${treeCount}\n${r[12]?.stdout}`,
    );
  });

  it("a search that matches nothing says so and exits 0; --json prints []", () => {
    assert.equal(r[1]?.code, 0);
    assert.match(r[1]?.stdout ?? "", /^No session matches "no-such-text-anywhere"/);
    assert.equal(r[2]?.code, 0);
    assert.deepEqual(JSON.parse(r[2]?.stdout ?? ""), []);
  });

  it("--entries lists the matching entries under the session: id, role and a snippet", () => {
    const lines = (r[3]?.stdout ?? "").trimEnd().split("\n");
    assert.equal(r[3]?.code, 0, r[3]?.stderr);
    assert.match(lines[0] ?? "", /^12345678 /);
    assert.match(lines[1] ?? "", /^ {4}12345601 {2}assistant {2}….* the Needle word and more after$/);
    assert.match(lines[2] ?? "", /^ {4}12345602 {2}user {7}and the NEEDLE again$/);
    assert.equal(lines.length, 3);
    const [row] = JSON.parse(r[4]?.stdout ?? "");
    assert.deepEqual(
      row.matches.map((m: { entryId: string; role: string }) => [m.entryId, m.role]),
      [
        ["12345601", "assistant"],
        ["12345602", "user"],
      ],
    );
    const second = row.matches[1];
    assert.equal(second.snippet.slice(second.matchStart, second.matchStart + second.matchLength), "NEEDLE");
    assert.equal(r[5]?.code, 2, "--entries needs --search");
  });
});
