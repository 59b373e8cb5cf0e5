import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { projectContext } from "../../src/core/context.js";
import type { CustomEntry, SessionEntry, SessionMessageEntry } from "../../src/core/entry.js";
import type { AssistantMessage, ToolResultMessage } from "../../src/core/messages.js";
import { checkEntry, checkHeader, isSafeId } from "../../src/core/validate.js";
import { looksLikeClaudeCode } from "../../src/format/claude-code.js";
import { importCodex, looksLikeCodex } from "../../src/format/codex.js";
import { decodeSession } from "../../src/format/jsonl/decode.js";
import { encodeSession } from "../../src/format/jsonl/encode.js";

/**
 * Fixtures written for these tests, reproducing the shapes of three generations of Codex rollouts
 * (checked against real public rollout files and Codex's protocol types; no content is copied):
 * - legacy-2025-07: bare header line, `record_type: state` markers, bare response items, no timestamps;
 * - cli-0.46-2025-10: session_meta/response_item/event_msg/turn_context envelopes, a freeform
 *   apply_patch call, a web search, a future record type, a compaction and a torn last line;
 * - desktop-0.104-2026-02: developer messages, task markers, collaboration mode, message phases,
 *   parallel exec_command calls, a thread name, a model and effort change, an interrupted call
 *   and an output whose call is not in the file.
 */
const DIR = join(dirname(fileURLToPath(import.meta.url)), "fixtures/codex");
const LEGACY = "legacy-2025-07.jsonl";
const CLI_046 = "cli-0.46-2025-10.jsonl";
const DESKTOP = "desktop-0.104-2026-02.jsonl";
const ALL = [LEGACY, CLI_046, DESKTOP];

const read = (name: string) => readFileSync(join(DIR, name), "utf8");
const load = (name: string) => importCodex(read(name), { fileName: `/home/dev/.codex/sessions/x/${name}` });

function messages(entries: SessionEntry[]) {
  return entries.filter((e): e is SessionMessageEntry => e.type === "message").map((e) => e.message);
}

function customTypes(entries: SessionEntry[]): string[] {
  return entries.filter((e): e is CustomEntry => e.type === "custom").map((e) => e.customType);
}

function roles(name: string): string[] {
  return projectContext(load(name).entries).messages.map((m) => m.role);
}

describe("every fixture", () => {
  for (const name of ALL) {
    test(`${name}: a valid chain of safe, unique ids that survives a pi file round trip`, () => {
      const { header, entries } = load(name);
      assert.ok(checkHeader(header).ok);
      const ids = new Set<string>();
      entries.forEach((entry, i) => {
        const checked = checkEntry(entry);
        assert.ok(checked.ok, `${entry.id}: ${checked.ok ? "" : checked.reason}`);
        assert.ok(isSafeId(entry.id), entry.id);
        assert.ok(!ids.has(entry.id), `duplicate id ${entry.id}`);
        ids.add(entry.id);
        assert.equal(entry.parentId, i === 0 ? null : entries[i - 1]?.id);
        assert.ok(!Number.isNaN(Date.parse(entry.timestamp)), `${entry.id} timestamp ${entry.timestamp}`);
      });
      const decoded = decodeSession(encodeSession(header, entries));
      assert.deepEqual(decoded.issues, []);
      assert.equal(decoded.entries.length, entries.length);
    });

    test(`${name}: ids and content are the same on a re-import`, () => {
      assert.deepEqual(load(name), load(name));
    });

    test(`${name}: recognised as Codex, not as Claude Code`, () => {
      assert.equal(looksLikeCodex(read(name)), true);
      assert.equal(looksLikeClaudeCode(read(name)), false);
    });
  }
});

describe("newer rollouts (envelopes, 2026)", () => {
  test("session id, cwd and start time come from the session meta", () => {
    const { header, leafId, entries } = load(DESKTOP);
    assert.equal(header.id, "019c2b3d-4e5f-7a60-8b71-9c0d1e2f3a4b");
    assert.equal(header.cwd, "/home/dev/shop");
    assert.equal(header.timestamp, "2026-02-10T14:00:00.200Z");
    assert.equal((header.importedFrom as Record<string, unknown>).version, "0.104.0");
    assert.equal(leafId, entries[entries.length - 1]?.id);
  });

  test("the context reads user → assistant(toolCall ×2) → toolResult ×2 → assistant, then the next turn", () => {
    assert.deepEqual(roles(DESKTOP), [
      "user",
      "assistant",
      "toolResult",
      "toolResult",
      "assistant",
      "user",
      "assistant",
    ]);
  });

  test("one response's reasoning, commentary and parallel calls are one assistant message", () => {
    const [first] = messages(load(DESKTOP).entries).filter(
      (m) => m.role === "assistant",
    ) as AssistantMessage[];
    assert.ok(first);
    assert.deepEqual(
      first.content.map((b) => b.type),
      ["thinking", "text", "toolCall", "toolCall"],
    );
    assert.equal(first.stopReason, "toolUse");
    assert.equal(first.provider, "openai");
    assert.equal(first.model, "gpt-5.3-codex");
    const [thinking, text, call] = first.content;
    assert.equal(thinking?.type === "thinking" && thinking.thinking, "**Inspecting cart totals**");
    // The encrypted reasoning stays with the block, as pi's openai-responses provider keeps it.
    assert.match(String(thinking?.thinkingSignature), /gAAAAABpfake-2026-reasoning/);
    assert.equal(text?.type === "text" && text.phase, "commentary");
    assert.deepEqual(call?.type === "toolCall" && call.arguments, {
      cmd: "sed -n 1,80p src/cart.ts",
      workdir: "/home/dev/shop",
    });
  });

  test("outputs pair with their calls by call_id, in string and content-item form", () => {
    const results = messages(load(DESKTOP).entries).filter(
      (m) => m.role === "toolResult",
    ) as ToolResultMessage[];
    assert.deepEqual(
      results.map((r) => [r.toolCallId, r.toolName, r.isError]),
      [
        ["call_Cart0001", "exec_command", false],
        ["call_Cart0002", "exec_command", false],
      ],
    );
    assert.deepEqual(results[1]?.content, [
      { type: "text", text: "test/cart.test.ts:12:  applies a 10% discount" },
    ]);
  });

  test("model and reasoning effort are carried over, and changed when a turn changes them", () => {
    const { entries, report } = load(DESKTOP);
    const settings = entries
      .filter((e) => e.type === "model_change" || e.type === "thinking_level_change")
      .map((e) =>
        e.type === "model_change" ? e.modelId : e.type === "thinking_level_change" ? e.thinkingLevel : "",
      );
    assert.deepEqual(settings, ["gpt-5.3-codex", "high", "gpt-5.4", "xhigh"]);
    const context = projectContext(entries);
    assert.deepEqual(context.model, { provider: "openai", modelId: "gpt-5.4" });
    assert.equal(context.thinkingLevel, "xhigh");
    assert.equal(report.model, "gpt-5.4");
    assert.equal(report.thinkingLevel, "xhigh");
  });

  test("token counts become the assistant message's usage (input without the cached part)", () => {
    const [first] = messages(load(DESKTOP).entries).filter(
      (m) => m.role === "assistant",
    ) as AssistantMessage[];
    assert.deepEqual(
      { ...first?.usage, cost: undefined },
      { input: 9000, output: 300, cacheRead: 3000, cacheWrite: 0, totalTokens: 12300, cost: undefined },
    );
  });

  test("instructions and environment are kept as custom entries, out of the context", () => {
    const { entries } = load(DESKTOP);
    assert.deepEqual(customTypes(entries).slice(0, 4), [
      "codex.session_meta",
      "codex.developer",
      "codex.context",
      "codex.context",
    ]);
    const texts = projectContext(entries).messages.map((m) => JSON.stringify(m));
    assert.ok(!texts.some((t) => t.includes("environment_context") || t.includes("AGENTS.md")));
  });

  test("the thread name becomes the session name", () => {
    const info = load(DESKTOP).entries.find((e) => e.type === "session_info");
    assert.equal(info?.type === "session_info" && info.name, "Cart discounts");
  });

  test("a call with no output and an output with no call are kept and reported", () => {
    const { entries, report } = load(DESKTOP);
    assert.deepEqual(report.unpaired, { calls: ["call_Test0003"], outputs: ["call_Ghost9999"] });
    const last = messages(entries).at(-1) as AssistantMessage;
    assert.equal(last.content.at(-1)?.type === "toolCall" && last.content.at(-1)?.id, "call_Test0003");
    const orphan = entries.find(
      (e) => e.type === "custom" && e.customType === "codex.orphan_output",
    ) as CustomEntry;
    assert.deepEqual(orphan.data, {
      type: "function_call_output",
      call_id: "call_Ghost9999",
      output: "aborted",
    });
    assert.equal(report.notes.length, 2);
  });

  test("event_msg copies are folded into their response items, never entries of their own", () => {
    const { report, entries } = load(DESKTOP);
    assert.equal(report.folded["event_msg.user_message"], 2);
    assert.equal(report.folded["event_msg.agent_message"], 2);
    assert.equal(messages(entries).filter((m) => m.role === "user").length, 2);
    assert.deepEqual(report.skipped, []);
  });
});

describe("autumn 2025 rollouts (0.46)", () => {
  test("a torn last line is reported with its line number; everything before it is kept", () => {
    const { report, entries } = load(CLI_046);
    assert.deepEqual(report.skipped, [{ line: 23, reason: "not JSON (torn last line)" }]);
    assert.equal(entries.at(-1)?.id, "cx000021");
  });

  test("a record type from a future version is kept as a custom entry with its payload", () => {
    const entry = load(CLI_046).entries.find(
      (e) => e.type === "custom" && e.customType === "codex.ghost_snapshot_v9",
    ) as CustomEntry<Record<string, unknown>>;
    assert.deepEqual(entry.data?.payload, { note: "a record type from a future version" });
  });

  test("a freeform apply_patch call keeps its raw input and pairs with its output", () => {
    const all = messages(load(CLI_046).entries);
    const patch = all.find(
      (m) =>
        m.role === "assistant" &&
        (m as AssistantMessage).content.some((b) => b.type === "toolCall" && b.name === "apply_patch"),
    ) as AssistantMessage;
    const call = patch.content.find((b) => b.type === "toolCall");
    assert.match(String(call?.type === "toolCall" && call.arguments.input), /^\*\*\* Begin Patch/);
    const result = all.find(
      (m) => m.role === "toolResult" && m.toolCallId === "call_Patch0002",
    ) as ToolResultMessage;
    assert.equal(result.toolName, "apply_patch");
  });

  test("a web search is kept beside the conversation, not as an unanswered tool call", () => {
    const { entries, report } = load(CLI_046);
    assert.ok(customTypes(entries).includes("codex.web_search_call"));
    assert.deepEqual(report.unpaired, { calls: [], outputs: [] });
  });

  test("a compaction replaces what came before it with Codex's summary", () => {
    const { entries } = load(CLI_046);
    const context = projectContext(entries);
    assert.deepEqual(
      context.messages.map((m) => m.role),
      ["compactionSummary", "user"],
    );
    assert.equal(context.compaction?.keptFound, true);
    assert.deepEqual(context.warnings, []);
    const summary = context.messages[0];
    assert.match(String(summary?.role === "compactionSummary" && summary.summary), /--limit flag/);
  });

  test("before the compaction the path reads user → assistant(toolCall) → toolResult → assistant", () => {
    const { entries } = load(CLI_046);
    const upTo = entries.findIndex((e) => e.type === "custom" && e.customType === "codex.compacted");
    const context = projectContext(entries.slice(0, upTo));
    assert.deepEqual(
      context.messages.map((m) => m.role),
      ["user", "assistant", "toolResult", "assistant", "toolResult", "assistant"],
    );
    const [, assistant] = context.messages as [unknown, AssistantMessage];
    assert.deepEqual(
      assistant.content.map((b) => b.type),
      ["thinking", "toolCall"],
    );
  });
});

describe("mid 2025 rollouts (bare header and items)", () => {
  test("the header line gives the session; the environment context gives the cwd", () => {
    const { header, report } = load(LEGACY);
    assert.equal(header.id, "5f0c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1e2f");
    assert.equal(header.cwd, "/home/dev/widgets");
    assert.equal(report.shape, "legacy");
    assert.equal(report.folded.state, 3);
    assert.deepEqual(report.skipped, []);
  });

  test("items without timestamps take the header's time", () => {
    for (const entry of load(LEGACY).entries) assert.equal(entry.timestamp, "2025-07-14T09:12:03.417Z");
  });

  test("context: user → assistant(reasoning, toolCall) → toolResult → assistant → toolResult → assistant", () => {
    assert.deepEqual(roles(LEGACY), [
      "user",
      "assistant",
      "toolResult",
      "assistant",
      "toolResult",
      "assistant",
    ]);
  });

  test("a shell output whose exit code is not 0 is an error result", () => {
    const results = messages(load(LEGACY).entries).filter(
      (m) => m.role === "toolResult",
    ) as ToolResultMessage[];
    assert.deepEqual(
      results.map((r) => r.isError),
      [false, true],
    );
  });

  test("encrypted-only reasoning keeps no invented text", () => {
    const assistant = messages(load(LEGACY).entries).find((m) => m.role === "assistant") as AssistantMessage;
    const thinking = assistant.content[0];
    assert.equal(thinking?.type === "thinking" && thinking.thinking, "");
    assert.match(String(thinking?.thinkingSignature), /gAAAAABodMCqOPAQUEBLOB==/);
  });
});

describe("edge cases", () => {
  const meta = '{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"s-1","cwd":"/w"}}';

  test("a prompt known only from its event_msg (no response item) becomes the user message", () => {
    const text = [
      meta,
      '{"timestamp":"2026-01-01T00:00:01Z","type":"event_msg","payload":{"type":"user_message","message":"hello"}}',
      '{"timestamp":"2026-01-01T00:00:02Z","type":"event_msg","payload":{"type":"agent_message","message":"hi"}}',
    ].join("\n");
    const { entries } = importCodex(text);
    assert.deepEqual(
      projectContext(entries).messages.map((m) => [
        m.role,
        JSON.stringify((m as { content: unknown }).content),
      ]),
      [
        ["user", '[{"type":"text","text":"hello"}]'],
        ["assistant", '[{"type":"text","text":"hi"}]'],
      ],
    );
  });

  test("lines that are JSON but not objects are reported, never a crash", () => {
    const { report, entries } = importCodex([meta, "[1,2]", "42", ""].join("\n"));
    assert.deepEqual(report.skipped, [
      { line: 2, reason: "not a JSON object" },
      { line: 3, reason: "not a JSON object" },
    ]);
    assert.equal(entries.length, 1);
  });

  test("arguments that are not a JSON object are kept whole", () => {
    const text = [
      meta,
      '{"timestamp":"2026-01-01T00:00:01Z","type":"response_item","payload":{"type":"function_call","name":"x","arguments":"[REDACTED]","call_id":"c1"}}',
    ].join("\n");
    const [, entry] = importCodex(text).entries as [unknown, SessionMessageEntry];
    const call = (entry.message as AssistantMessage).content[0];
    assert.deepEqual(call?.type === "toolCall" && call.arguments, { _raw: "[REDACTED]" });
  });

  test("without a session meta the file name's uuid is the session id", () => {
    const item = '{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}';
    const fileName = "rollout-2025-06-01T10-00-00-0197a0b1-c2d3-7e4f-8a9b-0c1d2e3f4a5b.jsonl";
    assert.equal(importCodex(item, { fileName }).header.id, "0197a0b1-c2d3-7e4f-8a9b-0c1d2e3f4a5b");
  });

  test("pi and Claude Code sessions do not look like Codex", () => {
    const pi = '{"type":"session","version":3,"id":"a","timestamp":"2026-01-01T00:00:00Z","cwd":"/w"}';
    const claude =
      '{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","message":{"role":"user","content":"hi"}}';
    assert.equal(looksLikeCodex(pi), false);
    assert.equal(looksLikeCodex(claude), false);
    assert.equal(looksLikeCodex("not json"), false);
  });
});

describe("compactions of newer versions", () => {
  test("an empty summary message takes the readable replacement history, never encrypted items", () => {
    const text = [
      '{"timestamp":"2026-03-01T00:00:00Z","type":"session_meta","payload":{"id":"s-2","cwd":"/w"}}',
      '{"timestamp":"2026-03-01T00:00:01Z","type":"compacted","payload":{"message":"","replacement_history":[' +
        '{"type":"message","role":"user","content":[{"type":"input_text","text":"fix the build"}]},' +
        '{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context></environment_context>"}]},' +
        '{"type":"compaction","encrypted_content":"gAAAA-opaque"},' +
        '{"type":"message","role":"user","content":[{"type":"input_text","text":"Summary: the build was fixed."}]}]}}',
    ].join("\n");
    const context = projectContext(importCodex(text).entries);
    const summary = context.messages[0];
    assert.equal(
      summary?.role === "compactionSummary" && summary.summary,
      "fix the build\n\nSummary: the build was fixed.",
    );
  });
});
