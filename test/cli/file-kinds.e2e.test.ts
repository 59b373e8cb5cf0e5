import assert from "node:assert/strict";
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import {
  CLAUDE_V2_SESSION_ID,
  claudeSessionLines,
  claudeSubagentLines,
  claudeV2SessionLines,
} from "./claude-fixture.js";
import { runScenario, tempWorkspace } from "./helpers.js";

/** A Codex CLI rollout (envelope shape, written here). */
const CODEX = [
  {
    timestamp: "2026-01-02T03:04:05.000Z",
    type: "session_meta",
    payload: { id: "0199aaaa-1111-7222-8333-444455556666", timestamp: "2026-01-02T03:04:05.000Z", cwd: "/w" },
  },
  {
    timestamp: "2026-01-02T03:04:07.000Z",
    type: "response_item",
    payload: { type: "message", role: "user", content: [{ type: "input_text", text: "hello" }] },
  },
];

const PI = [
  {
    type: "session",
    version: 3,
    id: "0190bbbb-0000-7000-8000-000000000000",
    timestamp: "2026-01-01T00:00:00.000Z",
    cwd: "/p",
  },
  {
    type: "message",
    id: "e1",
    parentId: null,
    timestamp: "2026-01-01T00:00:01.000Z",
    message: { role: "user", content: "hi", timestamp: 1 },
  },
];

const jsonl = (records: readonly unknown[]) => `${records.map((r) => JSON.stringify(r)).join("\n")}\n`;
const errorOf = (stdout: string | undefined) =>
  JSON.parse(stdout ?? "{}").error as { code: string; message: string };

describe("read-only commands on files that are not sessions", () => {
  const ws = tempWorkspace();
  let r: ReturnType<typeof runScenario>;

  before(() => {
    writeFileSync(join(ws.dir, "empty.jsonl"), "");
    writeFileSync(join(ws.dir, "blank.jsonl"), "\n \n");
    writeFileSync(join(ws.dir, "claude.jsonl"), `${claudeSessionLines().join("\n")}\n`);
    writeFileSync(join(ws.dir, "codex.jsonl"), jsonl(CODEX));
    r = runScenario(ws.dir, [
      /* 0 */ { args: ["show", "empty.jsonl", "--json"] },
      /* 1 */ { args: ["tree", "empty.jsonl"] },
      /* 2 */ { args: ["export", "empty.jsonl"] },
      /* 3 */ { args: ["show", "blank.jsonl", "--json"] },
      /* 4 */ { args: ["fsck", "empty.jsonl", "blank.jsonl", "--json"] },
      /* 5 */ { args: ["show", "claude.jsonl", "--json"] },
      /* 6 */ { args: ["tree", "claude.jsonl"] },
      /* 7 */ { args: ["fsck", "claude.jsonl", "--json"] },
      /* 8 */ { args: ["fsck", "claude.jsonl"] },
      /* 9 */ { args: ["show", "codex.jsonl", "--json"] },
      /* 10 */ { args: ["export", "codex.jsonl", "--json"] },
    ]);
  });
  after(() => ws.cleanup());

  it("an empty file is refused by show, tree and export (typed, exit 1), and no session id is invented", () => {
    for (const i of [0, 1, 2, 3]) assert.equal(r[i]?.code, 1, `call ${i}`);
    assert.equal(errorOf(r[0]?.stdout).code, "empty_session_file");
    assert.equal(errorOf(r[3]?.stdout).code, "empty_session_file");
    assert.match(r[1]?.stderr ?? "", /\[empty_session_file\] .*empty\.jsonl is an empty file, not a session/);
    assert.match(r[2]?.stderr ?? "", /empty_session_file/);
    for (const i of [0, 1, 2])
      assert.doesNotMatch(`${r[i]?.stdout}${r[i]?.stderr}`, /[0-9a-f]{8}-[0-9a-f]{4}-7/);
    assert.equal(statSync(join(ws.dir, "empty.jsonl")).size, 0, "nothing was written");
  });

  it("fsck reports an empty file as one finding with the same code", () => {
    assert.equal(r[4]?.code, 1);
    const out = JSON.parse(r[4]?.stdout ?? "");
    assert.equal(out.withFindings, 2);
    for (const file of out.files) {
      assert.deepEqual(
        file.issues.map((i: { code: string }) => i.code),
        ["empty_session_file"],
      );
      assert.equal(file.kind, "empty");
    }
  });

  it("a Claude Code file: one message saying what it is and to import it, not a finding per line", () => {
    assert.equal(r[5]?.code, 1);
    const error = errorOf(r[5]?.stdout);
    assert.equal(error.code, "foreign_session_file");
    assert.match(
      error.message,
      /is a Claude Code session \(15 records\).*sessiontree import .*claude\.jsonl/,
    );
    assert.match(r[6]?.stderr ?? "", /foreign_session_file/);
    assert.equal(r[7]?.code, 1);
    const [file] = JSON.parse(r[7]?.stdout ?? "").files;
    assert.equal(file.kind, "claude-code");
    assert.deepEqual(
      file.issues.map((i: { code: string }) => i.code),
      ["foreign_session_file"],
    );
    assert.doesNotMatch(r[8]?.stdout ?? "", /id must be a non-empty string/);
    assert.match(r[8]?.stdout ?? "", /a Claude Code session \(15 records\)/);
  });

  it("a Codex rollout: the same, naming Codex", () => {
    assert.equal(r[9]?.code, 1);
    assert.equal(errorOf(r[9]?.stdout).code, "foreign_session_file");
    assert.match(errorOf(r[9]?.stdout).message, /a Codex CLI session \(2 records\)/);
    assert.equal(errorOf(r[10]?.stdout).code, "foreign_session_file");
  });
});

describe("import: formats that do not match, sessions that grew, subagent files", () => {
  const ws = tempWorkspace();
  let r: ReturnType<typeof runScenario>;
  const source = () => join(ws.dir, "live", `${CLAUDE_V2_SESSION_ID}.jsonl`);

  before(() => {
    mkdirSync(join(ws.dir, "live", CLAUDE_V2_SESSION_ID, "subagents"), { recursive: true });
    writeFileSync(join(ws.dir, "pi.jsonl"), jsonl(PI));
    writeFileSync(join(ws.dir, "claude.jsonl"), `${claudeSessionLines().join("\n")}\n`);
    writeFileSync(
      join(ws.dir, "live", CLAUDE_V2_SESSION_ID, "subagents", "agent-a7c0ffe.jsonl"),
      `${claudeSubagentLines({ withAgentId: false }).join("\n")}\n`,
    );
    // The session as it was when first imported: the first reply, before its tool results.
    writeFileSync(source(), `${claudeV2SessionLines().slice(0, 10).join("\n")}\n`);
    const first = runScenario(ws.dir, [
      /* 0 */ { args: ["import", "pi.jsonl", "--format", "claude", "--json"] },
      /* 1 */ { args: ["import", "claude.jsonl", "--format", "pi"] },
      /* 2 */ { args: ["import", "live", "--json"] },
      /* 3 */ { args: ["import", "live"] },
    ]);
    // Claude Code went on: the rest of the session is appended to its file.
    writeFileSync(source(), `${claudeV2SessionLines().join("\n")}\n`);
    r = [
      ...first,
      ...runScenario(ws.dir, [
        /* 4 */ { args: ["import", source(), "--json"] },
        /* 5 */ { args: ["import", source()] },
        /* 6 */ { args: ["tree", CLAUDE_V2_SESSION_ID, "--json"] },
        /* 7 */ { args: ["show", CLAUDE_V2_SESSION_ID, "--json"] },
        /* 8 */ { args: ["fsck", "--json"] },
      ]),
    ];
  });
  after(() => ws.cleanup());

  it("refuses --format claude on a pi file, saying what the file is", () => {
    assert.equal(r[0]?.code, 1);
    const out = JSON.parse(r[0]?.stdout ?? "");
    assert.equal(out.imported.length, 0);
    assert.equal(out.failed[0].code, "format_mismatch");
    assert.match(out.failed[0].message, /the file is a pi session \(v3, 2 records\): use --format pi/);
  });

  it("refuses --format pi on a Claude Code file and suggests --format claude", () => {
    assert.equal(r[1]?.code, 1);
    assert.match(
      r[1]?.stdout ?? "",
      /is a Claude Code session \(15 records\): use --format claude \(or auto\)/,
    );
  });

  it("imports the main session and its subagent file (no agentId: named by its file) apart", () => {
    assert.equal(r[2]?.code, 0, r[2]?.stdout);
    const ids = JSON.parse(r[2]?.stdout ?? "").imported.map((i: { sessionId: string }) => i.sessionId);
    assert.deepEqual(ids.sort(), [CLAUDE_V2_SESSION_ID, `${CLAUDE_V2_SESSION_ID}.agent-a7c0ffe`]);
    assert.match(r[3]?.stdout ?? "", /already imported, nothing new/);
    assert.equal(r[3]?.code, 0);
  });

  it("appends what a session gained since its import, and says so", () => {
    assert.equal(r[4]?.code, 0, r[4]?.stdout);
    const out = JSON.parse(r[4]?.stdout ?? "");
    assert.equal(out.imported.length, 0);
    assert.equal(out.appended.length, 1);
    assert.equal(out.appended[0].sessionId, CLAUDE_V2_SESSION_ID);
    assert.ok(out.appended[0].appended > 0);
    assert.equal(out.appended[0].renamed, true);
    assert.match(r[5]?.stdout ?? "", /already imported, nothing new/);
    const path = out.appended[0].path as string;
    const lines = readFileSync(path, "utf8").trim().split("\n");
    assert.equal(lines.filter((l) => JSON.parse(l).id === "q1").length, 1, "no entry written twice");
  });

  it("the grown session reads as Claude Code left it: name, leaf, one merged reply", () => {
    const tree = JSON.parse(r[6]?.stdout ?? "");
    assert.equal(tree.name, "Find TODO and FIXME markers");
    assert.equal(tree.leafId, "r5");
    const context = JSON.parse(r[7]?.stdout ?? "");
    assert.deepEqual(
      context.messages.map((m: { role: string }) => m.role),
      ["user", "assistant", "toolResult", "toolResult", "assistant"],
    );
    assert.equal(context.messages[1].stopReason, "toolUse");
    assert.equal(r[8]?.code, 0, r[8]?.stdout);
  });
});
