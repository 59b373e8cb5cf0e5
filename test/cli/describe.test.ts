import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ENTRY_TYPES, type EntryType, type SessionEntry } from "../../src/core/entry.js";
import { describeEntry } from "../../src/format/describe.js";
import { exportMarkdown } from "../../src/format/export-markdown.js";

const base = { parentId: null, timestamp: "2025-01-01T00:00:00.000Z" };

/** One entry of every known type, as `tree` and the Markdown export see them. */
const SAMPLES: { [T in EntryType]: SessionEntry } = {
  message: { ...base, id: "m1", type: "message", message: { role: "user", content: "hello\nworld" } },
  thinking_level_change: { ...base, id: "t1", type: "thinking_level_change", thinkingLevel: "high" },
  model_change: { ...base, id: "mc", type: "model_change", provider: "openai", modelId: "gpt-4o" },
  compaction: {
    ...base,
    id: "c1",
    type: "compaction",
    summary: "the gist",
    firstKeptEntryId: "m1",
    tokensBefore: 1234,
  },
  branch_summary: { ...base, id: "b1", type: "branch_summary", fromId: "m1", summary: "left behind" },
  custom: { ...base, id: "x1", type: "custom", customType: "my.ext", data: { summary: "state" } },
  custom_message: {
    ...base,
    id: "cm",
    type: "custom_message",
    customType: "my.note",
    content: "a note",
    display: true,
  },
  label: { ...base, id: "l1", type: "label", targetId: "m1", label: "start" },
  session_info: { ...base, id: "s1", type: "session_info", name: "My session" },
};

describe("describeEntry: one line about an entry", () => {
  it("describes every known entry type with its own tag and title", () => {
    const expected: { [T in EntryType]: [string, string, string, string] } = {
      message: ["user", "user", "User", "hello\nworld"],
      thinking_level_change: ["setting", "thinking", "Thinking level: high", "high"],
      model_change: ["setting", "model", "Model: openai/gpt-4o", "openai/gpt-4o"],
      compaction: [
        "compaction",
        "compaction",
        "Compaction summary (1234 tokens before)",
        "1234 tokens → the gist",
      ],
      branch_summary: ["branchSummary", "branch summary", "Summary of an abandoned branch", "left behind"],
      custom: ["custom", "ext:my.ext", "Extension state: my.ext", "state"],
      custom_message: ["customMessage", "msg:my.note", "Extension message (my.note)", "a note"],
      label: ["label", "label", "Label on m1: start", "m1 = start"],
      session_info: ["name", "name", "Session named: My session", "My session"],
    };
    for (const type of Object.keys(ENTRY_TYPES) as EntryType[]) {
      const { kind, tag, title, text } = describeEntry(SAMPLES[type]);
      assert.deepEqual([kind, tag, title, text], expected[type], type);
    }
  });

  it("messages by role: tool calls, failures, tool results, other roles", () => {
    const message = (m: Record<string, unknown>) =>
      describeEntry({ ...base, id: "m", type: "message", message: m } as SessionEntry);
    const reply = message({
      role: "assistant",
      model: "gpt-4o",
      content: [
        { type: "text", text: "reading" },
        { type: "toolCall", id: "c", name: "read", arguments: {} },
      ],
    });
    assert.deepEqual(reply, {
      kind: "assistant",
      tag: "asst",
      title: "Assistant (gpt-4o)",
      text: "reading → read",
    });
    const failed = message({
      role: "assistant",
      content: [],
      stopReason: "error",
      errorMessage: "overloaded",
    });
    assert.deepEqual([failed.kind, failed.text], ["error", "error: overloaded"]);
    const result = message({
      role: "toolResult",
      toolName: "bash",
      isError: true,
      content: [{ type: "text", text: "boom" }],
    });
    assert.deepEqual(result, {
      kind: "error",
      tag: "tool:bash",
      title: "Tool result: bash (error)",
      text: "boom",
    });
    const bash = message({ role: "bashExecution", command: "ls -la" });
    assert.deepEqual([bash.kind, bash.tag, bash.text], ["message", "bash", "ls -la"]);
  });

  it("an empty name or label reads as cleared, as an absent one does", () => {
    assert.equal(describeEntry({ ...base, id: "s", type: "session_info", name: "" }).text, "(cleared)");
    assert.equal(
      describeEntry({ ...base, id: "l", type: "label", targetId: "m1", label: "" }).text,
      "m1 = (cleared)",
    );
  });

  it("never throws: unknown types get a generic line, odd data reads as empty", () => {
    const unknown = describeEntry({ ...base, id: "u", type: "future_thing" } as unknown as SessionEntry);
    assert.deepEqual(unknown, {
      kind: "other",
      tag: "future_thing",
      title: "Entry of type future_thing",
      text: "",
    });
    // A known type without its own fields (malformed: core/validate.ts) reads as an unknown one.
    const noMessage = describeEntry({ ...base, id: "m", type: "message" } as unknown as SessionEntry);
    assert.deepEqual(noMessage, {
      kind: "other",
      tag: "message",
      title: "Entry of type message, its fields not as expected",
      text: "",
    });
    const oddCustom = describeEntry({
      ...base,
      id: "x",
      type: "custom",
      customType: "t",
      data: 42,
    } as SessionEntry);
    assert.equal(oddCustom.text, "");
  });

  it("the Markdown export heads and notes entries with their titles", () => {
    const header = { type: "session" as const, version: 3, id: "s", timestamp: base.timestamp, cwd: "/w" };
    const markdown = exportMarkdown({ header, path: Object.values(SAMPLES) });
    for (const line of [
      "## User",
      "*Thinking level: high*",
      "*Model: openai/gpt-4o*",
      "## Compaction summary (1234 tokens before)",
      "## Summary of an abandoned branch",
      "*Extension state: my.ext*",
      "## Extension message (my.note)",
      "*Label on m1: start*",
      "*Session named: My session*",
    ])
      assert.ok(markdown.split("\n").includes(line), line);
  });
});
