import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import { importClaudeCode } from "../../src/format/claude-code.js";
import { CLAUDE_CWD, CLAUDE_SESSION_ID, claudeSessionLines } from "./claude-fixture.js";
import { cliEnv, readJsonl, runScenario, tempWorkspace } from "./helpers.js";

describe("importClaudeCode (pure)", () => {
  const result = importClaudeCode(`${claudeSessionLines().join("\n")}\n`);
  const byId = new Map(result.entries.map((e) => [e.id, e]));

  it("keeps every line: mapped, merged or reported", () => {
    const { report } = result;
    assert.equal(report.lines, 15);
    const mapped = Object.values(report.mapped).reduce((a, b) => a + b, 0);
    // 14 lines: 13 entries + 1 assistant line merged; +1 session name derived from the summary.
    assert.equal(mapped - (report.mapped.title ?? 0) + report.merged + report.skipped.length, report.lines);
    assert.equal(report.merged, 1);
    assert.deepEqual(
      report.skipped.map((s) => s.line),
      [13],
    );
  });

  it("merges one reply split over lines, so tool call and result pair up", () => {
    const a1 = byId.get("a1");
    assert.equal(a1?.type, "message");
    const content = (a1 as { message: { content: Array<{ type: string }> } }).message.content;
    assert.deepEqual(
      content.map((b) => b.type),
      ["thinking", "toolCall"],
    );
    const u2 = byId.get("u2") as {
      parentId: string;
      message: { role: string; toolName: string; toolCallId: string };
    };
    assert.equal(u2.parentId, "a1");
    assert.equal(u2.message.role, "toolResult");
    assert.equal(u2.message.toolName, "Read");
    assert.equal(u2.message.toolCallId, "toolu_1");
  });

  it("hangs a compact boundary under its logical parent and makes the summary a compaction", () => {
    assert.equal(byId.get("b1")?.parentId, "a3");
    assert.equal(byId.get("b1")?.type, "custom");
    const c1 = byId.get("c1") as { type: string; firstKeptEntryId: string; tokensBefore: number };
    assert.equal(c1.type, "compaction");
    assert.equal(c1.firstKeptEntryId, "b1");
    assert.equal(c1.tokensBefore, 4242);
  });

  it("keeps sidechains out of the main context, under the entry they ran from", () => {
    const s1 = byId.get("s1") as { type: string; customType: string; parentId: string };
    assert.equal(s1.type, "custom");
    assert.equal(s1.customType, "claude-code.sidechain");
    assert.equal(s1.parentId, "u2");
    assert.equal(byId.get("s2")?.parentId, "s1");
  });

  it("chains side records in, names the session from the summary, ends on the latest message", () => {
    assert.equal(byId.get("u1")?.parentId, "summary-0");
    assert.equal(byId.get("a1")?.parentId, "file-history-snapshot-2");
    assert.equal(result.header.id, CLAUDE_SESSION_ID);
    assert.equal(result.header.cwd, CLAUDE_CWD);
    assert.equal(result.header.timestamp, "2025-08-01T10:00:00.000Z");
    // The leaf is the conversation's last message; the name hangs beside it.
    assert.equal(result.leafId, "u4");
    assert.equal(result.name, "Fix the flaky test");
    const name = result.entries.find((e) => e.type === "session_info") as { name: string; parentId: string };
    assert.equal(name.name, "Fix the flaky test");
    assert.equal(name.parentId, "u4");
    assert.deepEqual(result.derivedIds, ["u4.name", "u4.leaf"]);
  });
});

describe("importClaudeCode on a subagent file of its own", () => {
  it("imports the sidechain as the conversation, under an id of its own", () => {
    const lines = [
      {
        parentUuid: null,
        isSidechain: true,
        agentId: "ab12",
        sessionId: CLAUDE_SESSION_ID,
        cwd: CLAUDE_CWD,
        type: "user",
        message: { role: "user", content: "Search for sleep" },
        uuid: "x1",
        timestamp: "2025-08-01T10:00:00.000Z",
      },
      {
        parentUuid: "x1",
        isSidechain: true,
        agentId: "ab12",
        sessionId: CLAUDE_SESSION_ID,
        cwd: CLAUDE_CWD,
        type: "assistant",
        message: {
          id: "m",
          role: "assistant",
          model: "claude-haiku",
          content: [{ type: "text", text: "Found 3." }],
          stop_reason: "end_turn",
        },
        uuid: "x2",
        timestamp: "2025-08-01T10:00:01.000Z",
      },
    ];
    const result = importClaudeCode(lines.map((l) => JSON.stringify(l)).join("\n"));
    assert.equal(result.header.id, `${CLAUDE_SESSION_ID}.agent-ab12`);
    assert.deepEqual(
      result.entries.map((e) => e.type),
      ["message", "message"],
    );
    assert.equal(result.leafId, "x2");
  });
});

describe("importClaudeCode when the file does not end on the leaf", () => {
  it("writes a leaf marker so pi and sessiontree resume on the main conversation", () => {
    const lines = claudeSessionLines().filter((l) => !l.includes('"type":"summary"'));
    const sidechain = JSON.parse(lines.find((l) => l.includes('"uuid":"s2"')) as string);
    lines.push(JSON.stringify({ ...sidechain, uuid: "s3", parentUuid: "s2" }));
    const result = importClaudeCode(lines.join("\n"));
    assert.equal(result.leafId, "u4");
    const last = result.entries[result.entries.length - 1] as {
      type: string;
      customType: string;
      parentId: string;
    };
    assert.equal(last.customType, "sessiontree.leaf");
    assert.equal(last.parentId, "u4");
  });
});

describe("sessiontree import", () => {
  const ws = tempWorkspace();
  let results: ReturnType<typeof runScenario>;
  let sessionPath: string;

  before(() => {
    const claudeDir = join(ws.dir, "claude-project");
    mkdirSync(claudeDir);
    writeFileSync(join(claudeDir, `${CLAUDE_SESSION_ID}.jsonl`), `${claudeSessionLines().join("\n")}\n`);
    const garbage = join(ws.dir, "garbage");
    mkdirSync(garbage);
    writeFileSync(join(garbage, "noise.jsonl"), "hello\nworld\n");
    writeFileSync(join(garbage, "empty.jsonl"), "");
    results = runScenario(ws.dir, [
      { args: ["import", "claude-project", "--json"] },
      { args: ["import", "claude-project", "--json"] },
      { args: ["tree", CLAUDE_SESSION_ID.slice(0, 8), "--json"] },
      { args: ["show", "--json"], cwd: ws.dir, env: cliEnv(ws.dir) },
      { args: ["import", "garbage", "--json"] },
      { args: ["import", "garbage"] },
      { args: ["import", "no-such-file.jsonl"] },
      { args: ["import", "claude-project", "--root", join(ws.dir, "other"), "--cwd", "proj2"] },
      { args: ["fsck", "--json"] },
      { args: ["show", CLAUDE_SESSION_ID, "--json"] },
    ]);
    sessionPath = (JSON.parse(results[0]?.stdout ?? "{}").imported[0] as { path: string }).path;
  });
  after(() => ws.cleanup());

  it("imports a Claude Code folder, reports the damaged line and exits 1", () => {
    const [first] = results;
    assert.equal(first?.code, 1);
    const out = JSON.parse(first?.stdout ?? "");
    assert.equal(out.imported.length, 1);
    assert.equal(out.imported[0].format, "claude-code");
    assert.equal(out.imported[0].sessionId, CLAUDE_SESSION_ID);
    assert.equal(out.imported[0].problems, 1);
    assert.deepEqual(out.imported[0].report.skipped, [{ line: 13, reason: "not a JSON object" }]);
    assert.match(sessionPath, /home-dev-proj/);
    assert.equal(readJsonl(sessionPath)[0]?.type, "session");
  });

  it("skips a session imported before with nothing new (exit 0)", () => {
    const out = JSON.parse(results[1]?.stdout ?? "");
    assert.equal(results[1]?.code, 0);
    assert.equal(out.imported.length, 0);
    assert.equal(out.appended.length, 0);
    assert.equal(out.skipped[0].reason, "already_imported");
    assert.equal(out.skipped[0].message, "already imported, nothing new");
  });

  it("draws the imported tree with the rewind as a branch and the sidechain beside", () => {
    assert.equal(results[2]?.code, 0);
    const tree = JSON.parse(results[2]?.stdout ?? "");
    const byId = new Map(
      (tree.nodes as Array<{ id: string; children: string[]; onPath: boolean }>).map((n) => [n.id, n]),
    );
    assert.deepEqual(byId.get("u3")?.children.sort(), ["a4", "u4"]);
    assert.equal(byId.get("a4")?.onPath, false);
    assert.equal(byId.get("u4")?.onPath, true);
    assert.deepEqual(byId.get("u2")?.children.sort(), ["a3", "s1"]);
    assert.equal(tree.name, "Fix the flaky test");
  });

  it("projects the imported context: compaction summary, then the branch after it", () => {
    const out = JSON.parse(results[3]?.stdout ?? "");
    assert.equal(results[3]?.code, 1, "no session of the workspace dir itself");
    assert.equal(out.error.code, "session_not_found");
    const pi = PiSessionManager.open(sessionPath);
    const context = pi.buildSessionContext();
    assert.deepEqual(
      context.messages.map((m) => m.role),
      ["compactionSummary", "user", "user"],
    );
    // pi and sessiontree see the same context in the same file.
    const ours = JSON.parse(results[9]?.stdout ?? "");
    assert.deepEqual(ours.messages, JSON.parse(JSON.stringify(context.messages)));
    assert.equal(ours.compaction.entryId, "c1");
    assert.deepEqual(context.model, { provider: "anthropic", modelId: "claude-sonnet-4-5" });
  });

  it("reports a folder of garbage file by file and exits 1", () => {
    assert.equal(results[4]?.code, 1);
    const out = JSON.parse(results[4]?.stdout ?? "");
    assert.equal(out.imported.length, 0);
    assert.equal(out.failed.length, 2);
    assert.deepEqual(out.failed.map((f: { code: string }) => f.code).sort(), [
      "empty_session_file",
      "not_a_session",
    ]);
    assert.match(results[5]?.stdout ?? "", /failed .*empty\.jsonl: Nothing to import: an empty file/);
    assert.match(
      results[5]?.stdout ?? "",
      /failed .*noise\.jsonl: Not a session of pi, Claude Code or Codex: the file is not JSON lines/,
    );
    assert.match(results[5]?.stdout ?? "", /0 imported, 0 updated, 0 skipped, 2 failed/);
  });

  it("a missing file is a usage error (2) and --root/--cwd choose where sessions go", () => {
    assert.equal(results[6]?.code, 2);
    assert.match(results[6]?.stderr ?? "", /No such file or folder/);
    assert.equal(results[7]?.code, 1);
    assert.match(results[7]?.stdout ?? "", /other\/sessions\/.*proj2/);
  });

  it("leaves files that fsck finds clean", () => {
    assert.equal(results[8]?.code, 0, results[8]?.stdout);
    const out = JSON.parse(results[8]?.stdout ?? "");
    assert.equal(out.checked, 1);
    assert.equal(out.withFindings, 0);
  });
});
