import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { SessionEntry, SessionMessageEntry } from "../../src/core/entry.js";
import { SessionTree } from "../../src/core/tree.js";
import { importClaudeCode } from "../../src/format/claude-code.js";
import {
  CLAUDE_V2_SESSION_ID,
  claudeSessionLines,
  claudeSubagentLines,
  claudeV2SessionLines,
} from "../cli/claude-fixture.js";

const text = (lines: readonly string[]) => `${lines.join("\n")}\n`;
const byId = (entries: readonly SessionEntry[]) => new Map(entries.map((e) => [e.id, e]));
const messageOf = (entry: SessionEntry | undefined) =>
  (entry as SessionMessageEntry).message as Record<string, unknown>;

/** The tree a reader (ours, pi's) builds from the imported entries: where its leaf lands. */
function treeOf(entries: readonly SessionEntry[]): SessionTree {
  const tree = new SessionTree();
  for (const entry of entries) tree.load(entry);
  return tree;
}

describe("Claude Code 2.x import: names, leaf, split replies", () => {
  const result = importClaudeCode(text(claudeV2SessionLines()));
  const entries = byId(result.entries);

  it("names the session from the latest ai-title", () => {
    assert.equal(result.name, "Find TODO and FIXME markers");
    assert.equal(treeOf(result.entries).getSessionName(), "Find TODO and FIXME markers");
  });

  it("lands the leaf on the last message, not on the metadata records after it", () => {
    assert.equal(result.leafId, "r5");
    assert.equal(result.header.id, CLAUDE_V2_SESSION_ID);
    // What a reader of the written file resumes on (the trailing permission-mode record is not it).
    assert.equal(treeOf(result.entries).getLeafId(), "r5");
    const last = result.entries[result.entries.length - 1];
    assert.equal((last as { customType?: string }).customType, "sessiontree.leaf");
  });

  it("merges a reply split over four lines (a progress record between parts) into one message", () => {
    const reply = messageOf(entries.get("r1"));
    const content = reply.content as Array<{ type: string }>;
    assert.deepEqual(
      content.map((b) => b.type),
      ["thinking", "text", "toolCall", "toolCall"],
    );
    for (const part of ["r2", "r3", "r4"]) assert.equal(entries.has(part), false, `${part} is merged`);
    assert.equal(result.report.merged, 3);
    // Its stop reason is the last part's; Claude Code wrote null, the reply ends in a tool call.
    assert.equal(reply.stopReason, "toolUse");
    const t1 = entries.get("t1") as SessionMessageEntry;
    assert.equal(t1.parentId, "r1");
    assert.equal(messageOf(t1).toolName, "Grep");
    assert.equal(messageOf(entries.get("r5")).stopReason, "stop");
  });

  it("keeps a prompt given as a plain string as its text", () => {
    assert.equal(messageOf(entries.get("q1")).content, "List the TODOs in src");
  });

  it("keeps every line: mapped, merged or reported", () => {
    const { report } = result;
    const mapped = Object.values(report.mapped).reduce((a, b) => a + b, 0) - (report.mapped.title ?? 0);
    assert.equal(mapped + report.merged + report.skipped.length, report.lines);
    assert.equal(report.lines, claudeV2SessionLines().length);
  });
});

describe("Claude Code import: the stop reason of a split reply", () => {
  const part = (uuid: string, parentUuid: string, block: object, stop: string | null) =>
    JSON.stringify({
      type: "assistant",
      sessionId: "s",
      uuid,
      parentUuid,
      message: { id: "m", role: "assistant", content: [block], stop_reason: stop },
    });
  const user = JSON.stringify({
    type: "user",
    sessionId: "s",
    uuid: "u",
    parentUuid: null,
    message: { content: "go" },
  });
  const call = { type: "tool_use", id: "t", name: "Bash", input: {} };
  const reason = (lines: string[]) =>
    messageOf(byId(importClaudeCode(lines.join("\n")).entries).get("a")).stopReason;

  it("is the last part's: toolUse when the reply ends in a tool call, whatever Claude Code wrote", () => {
    assert.equal(
      reason([user, part("a", "u", { type: "text", text: "x" }, null), part("b", "a", call, null)]),
      "toolUse",
    );
    assert.equal(
      reason([user, part("a", "u", call, null), part("b", "a", { type: "text", text: "x" }, "end_turn")]),
      "stop",
    );
    assert.equal(reason([user, part("a", "u", { type: "text", text: "x" }, "max_tokens")]), "length");
  });
});

describe("Claude Code 2.1 import: parallel tool calls, results written as each one ends", () => {
  // As Claude Code 2.1 writes them (seen in public session files): each result hangs under the
  // line of its own call, and a later part of the same reply comes after some results.
  const base = { sessionId: "s", isSidechain: false, timestamp: "2026-02-01T10:00:00.000Z" };
  const part = (uuid: string, parentUuid: string, id: string, call: string) => ({
    ...base,
    type: "assistant",
    uuid,
    parentUuid,
    message: {
      id,
      role: "assistant",
      content: [{ type: "tool_use", id: call, name: "Read", input: {} }],
      stop_reason: null,
    },
  });
  const result = (uuid: string, parentUuid: string, call: string) => ({
    ...base,
    type: "user",
    uuid,
    parentUuid,
    message: { role: "user", content: [{ type: "tool_result", tool_use_id: call, content: `out ${call}` }] },
    sourceToolAssistantUUID: parentUuid,
  });
  const lines = [
    {
      ...base,
      type: "user",
      uuid: "u",
      parentUuid: null,
      message: { role: "user", content: "read three files" },
    },
    part("pA", "u", "m1", "A"),
    part("pB", "pA", "m1", "B"),
    result("rA", "pA", "A"),
    part("pC", "rA", "m1", "C"),
    result("rB", "pB", "B"),
    result("rC", "pC", "C"),
    {
      ...base,
      type: "assistant",
      uuid: "n",
      parentUuid: "rC",
      message: {
        id: "m2",
        role: "assistant",
        content: [{ type: "text", text: "done" }],
        stop_reason: "end_turn",
      },
    },
  ].map((l) => JSON.stringify(l));
  const result_ = importClaudeCode(lines.join("\n"));
  const tree = treeOf(result_.entries);

  it("makes one reply with every call, then every result in order, all on the path", () => {
    assert.equal(tree.getLeafId(), "n");
    const path = tree.getBranch().filter((e) => e.type === "message");
    assert.deepEqual(
      path.map((e) => e.id),
      ["u", "pA", "rA", "rB", "rC", "n"],
    );
    const calls = (messageOf(path[1]).content as Array<{ id: string }>).map((b) => b.id);
    assert.deepEqual(calls, ["A", "B", "C"]);
    assert.equal(messageOf(path[1]).stopReason, "toolUse");
  });
});

describe("Claude Code import: content in every shape stays what it says", () => {
  const base = { sessionId: "s", isSidechain: false };
  const lines = [
    { ...base, type: "user", uuid: "u1", parentUuid: null, message: "a message given as a bare string" },
    {
      ...base,
      type: "assistant",
      uuid: "a1",
      parentUuid: "u1",
      message: { id: "m1", role: "assistant", content: "a reply as a string", stop_reason: "end_turn" },
    },
    {
      ...base,
      type: "user",
      uuid: "u2",
      parentUuid: "a1",
      message: { role: "user", content: ["loose text in an array"] },
    },
    { ...base, type: "user", uuid: "u3", parentUuid: "u2", message: { role: "user" } },
  ].map((l) => JSON.stringify(l));
  const entries = byId(importClaudeCode(lines.join("\n")).entries);

  it("never turns a message into empty content", () => {
    assert.equal(messageOf(entries.get("u1")).content, "a message given as a bare string");
    assert.deepEqual(messageOf(entries.get("a1")).content, [{ type: "text", text: "a reply as a string" }]);
    assert.deepEqual(messageOf(entries.get("u2")).content, [
      { type: "text", text: "loose text in an array" },
    ]);
  });

  it("keeps a user line without any content as its record, not as an empty message", () => {
    const u3 = entries.get("u3") as { type: string; customType: string };
    assert.equal(u3.type, "custom");
    assert.equal(u3.customType, "claude-code.user");
  });
});

describe("Claude Code import: titles", () => {
  const withRecords = (...extra: object[]) =>
    importClaudeCode(text([...claudeSessionLines(), ...extra.map((r) => JSON.stringify(r))]));

  it("prefers a /rename over a generated title, and a generated title over a summary", () => {
    assert.equal(withRecords().name, "Fix the flaky test");
    assert.equal(withRecords({ type: "ai-title", aiTitle: "Generated" }).name, "Generated");
    const renamed = withRecords(
      { type: "custom-title", customTitle: "Mine" },
      { type: "ai-title", aiTitle: "Gen" },
    );
    assert.equal(renamed.name, "Mine");
  });

  it("takes the summary of this file's own conversation over one copied from an earlier session", () => {
    const lines = claudeSessionLines();
    lines.unshift(JSON.stringify({ type: "summary", summary: "An older session", leafUuid: "elsewhere" }));
    assert.equal(importClaudeCode(text(lines)).name, "Fix the flaky test");
  });
});

describe("Claude Code import: subagent files", () => {
  it("gives a subagent file without agentId the id its file name says", () => {
    const result = importClaudeCode(text(claudeSubagentLines({ withAgentId: false })), {
      fileName: "agent-a7c0ffe.jsonl",
    });
    assert.equal(result.header.id, `${CLAUDE_V2_SESSION_ID}.agent-a7c0ffe`);
    assert.deepEqual(
      result.entries.map((e) => e.type),
      ["message", "message"],
    );
  });

  it("never gives a subagent file its main session's id, even without a file name", () => {
    const result = importClaudeCode(text(claudeSubagentLines({ withAgentId: false })));
    assert.notEqual(result.header.id, CLAUDE_V2_SESSION_ID);
    assert.ok(result.header.id.startsWith(`${CLAUDE_V2_SESSION_ID}.agent-`));
  });

  it("prefers the records' agentId to the file name", () => {
    const result = importClaudeCode(text(claudeSubagentLines({ withAgentId: true })), {
      fileName: "agent-x.jsonl",
    });
    assert.equal(result.header.id, `${CLAUDE_V2_SESSION_ID}.agent-a7c0ffe`);
  });
});

describe("Claude Code import: a file that grew", () => {
  it("makes the same entries again, then the new ones (ids are stable)", () => {
    const all = claudeV2SessionLines();
    const before = importClaudeCode(text(all.slice(0, 12)));
    const after = importClaudeCode(text(all));
    const derived = new Set([...before.derivedIds, ...after.derivedIds]);
    const own = (r: typeof before) => r.entries.filter((e) => !derived.has(e.id));
    const earlier = own(before).map((e) => e.id);
    assert.deepEqual(
      own(after)
        .map((e) => e.id)
        .slice(0, earlier.length),
      earlier,
    );
    assert.ok(own(after).length > earlier.length);
  });
});
