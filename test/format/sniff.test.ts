import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { count, sniffSessionText } from "../../src/format/sniff.js";
import { claudeSessionLines, claudeSubagentLines, claudeV2SessionLines } from "../cli/claude-fixture.js";

const jsonl = (records: readonly unknown[]) => `${records.map((r) => JSON.stringify(r)).join("\n")}\n`;

const piHeader = {
  type: "session",
  version: 3,
  id: "0190aaaa-0000-7000-8000-000000000000",
  timestamp: "2026-01-01T00:00:00.000Z",
  cwd: "/x",
};
const piEntry = (id: string, parentId: string | null) => ({
  type: "message",
  id,
  parentId,
  timestamp: "2026-01-01T00:00:01.000Z",
  message: { role: "user", content: "hi", timestamp: 1 },
});

/** A Codex CLI rollout in the envelope shape of 0.4x+ versions (written here, not copied). */
const codexRollout = jsonl([
  {
    timestamp: "2026-01-02T03:04:05.000Z",
    type: "session_meta",
    payload: {
      id: "0199aaaa-1111-7222-8333-444455556666",
      timestamp: "2026-01-02T03:04:05.000Z",
      cwd: "/w",
      originator: "codex_cli_rs",
      cli_version: "0.46.0",
    },
  },
  {
    timestamp: "2026-01-02T03:04:06.000Z",
    type: "turn_context",
    payload: { cwd: "/w", model: "gpt-5-codex", effort: "medium" },
  },
  {
    timestamp: "2026-01-02T03:04:07.000Z",
    type: "response_item",
    payload: { type: "message", role: "user", content: [{ type: "input_text", text: "hello" }] },
  },
]);

describe("sniffSessionText: what a file is", () => {
  it("an empty file, or one of blank lines only", () => {
    assert.deepEqual(sniffSessionText(""), { kind: "empty", records: 0, description: "an empty file" });
    const blank = sniffSessionText("\n  \n\t\n");
    assert.equal(blank.kind, "empty");
    assert.equal(blank.description, "an empty file (only blank lines)");
  });

  it("a pi session, with the version its header says (1 when none)", () => {
    const v3 = sniffSessionText(jsonl([piHeader, piEntry("a", null)]));
    assert.equal(v3.kind, "pi");
    assert.equal(v3.version, 3);
    assert.equal(v3.description, "a pi session (v3, 2 records)");
    const { version: _, ...v1Header } = piHeader;
    assert.equal(sniffSessionText(jsonl([v1Header])).version, 1);
  });

  it("a pi session whose header line is damaged is still pi", () => {
    const text = `{"type":"session","ver\n${jsonl([piEntry("a", null), piEntry("b", "a")])}`;
    const file = sniffSessionText(text);
    assert.equal(file.kind, "pi");
    assert.equal(file.version, null);
    assert.match(file.description, /header is missing or damaged \(3 records\)/);
  });

  it("a Claude Code session: 1.0.x, 2.x, and a subagent's own file", () => {
    const old = sniffSessionText(`${claudeSessionLines().join("\n")}\n`);
    assert.equal(old.kind, "claude-code");
    assert.equal(old.subagent, false);
    assert.equal(old.description, "a Claude Code session (15 records)");
    assert.equal(sniffSessionText(claudeV2SessionLines().join("\n")).kind, "claude-code");
    const agent = sniffSessionText(claudeSubagentLines({ withAgentId: false }).join("\n"));
    assert.equal(agent.subagent, true);
    assert.equal(agent.description, "a Claude Code subagent session (2 records)");
  });

  it("a Claude Code file of metadata records only is still Claude Code", () => {
    const file = sniffSessionText(
      jsonl([
        { type: "ai-title", aiTitle: "x", sessionId: "s" },
        { type: "permission-mode", permissionMode: "default", sessionId: "s" },
      ]),
    );
    assert.equal(file.kind, "claude-code");
  });

  it("a Codex CLI rollout", () => {
    const file = sniffSessionText(codexRollout);
    assert.equal(file.kind, "codex");
    assert.equal(file.description, "a Codex CLI session (3 records)");
  });

  it("other JSON lines, and text that is not JSON lines", () => {
    assert.equal(sniffSessionText(jsonl([{ level: "info", msg: "started" }, [1, 2]])).kind, "jsonl");
    const text = sniffSessionText("hello\nworld\n");
    assert.equal(text.kind, "not-jsonl");
    assert.equal(text.description, "not JSON lines (2 lines of text)");
  });

  it("the head of a longer file: its cut last line is not looked at, the count is the file's", () => {
    const head = `${JSON.stringify(piHeader)}\n{"type":"mess`;
    const file = sniffSessionText(head, { partial: true, totalRecords: 1019 });
    assert.equal(file.kind, "pi");
    assert.equal(file.description, "a pi session (v3, 1,019 records)");
  });

  it("counts in words people read", () => {
    assert.equal(count(1, "record"), "1 record");
    assert.equal(count(1234567, "record"), "1,234,567 records");
  });
});
