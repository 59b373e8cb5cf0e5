/**
 * A Claude Code session in Claude Code's own JSONL shape (as `~/.claude/projects/<dir>/<id>.jsonl`
 * holds it): a summary record, file-history snapshots, an assistant reply split over two lines
 * (thinking, then a tool call), a tool result, a subagent sidechain, a compact boundary with
 * `logicalParentUuid` and its summary message, a rewind (a second child of u3), and one damaged line.
 */
export const CLAUDE_SESSION_ID = "11111111-2222-4333-8444-555555555555";
export const CLAUDE_CWD = "/home/dev/proj";

const base = {
  isSidechain: false,
  userType: "external",
  cwd: CLAUDE_CWD,
  sessionId: CLAUDE_SESSION_ID,
  version: "1.0.80",
};

function user(uuid: string, parentUuid: string | null, content: unknown, time: string, extra: object = {}) {
  return {
    ...base,
    parentUuid,
    type: "user",
    message: { role: "user", content },
    uuid,
    timestamp: `2025-08-01T10:${time}.000Z`,
    ...extra,
  };
}

function assistant(
  uuid: string,
  parentUuid: string,
  id: string,
  content: unknown[],
  time: string,
  stop: string | null,
) {
  const message = {
    id,
    type: "message",
    role: "assistant",
    model: "claude-sonnet-4-5",
    content,
    stop_reason: stop,
    usage: { input_tokens: 10, output_tokens: 5 },
  };
  return { ...base, parentUuid, type: "assistant", message, uuid, timestamp: `2025-08-01T10:${time}.000Z` };
}

export function claudeSessionLines(): string[] {
  const records: unknown[] = [
    { type: "summary", summary: "Fix the flaky test", leafUuid: "a4" },
    user("u1", null, "Why does test_io fail sometimes?", "00:00"),
    {
      type: "file-history-snapshot",
      messageId: "u1",
      snapshot: { messageId: "u1", trackedFileBackups: {} },
      isSnapshotUpdate: false,
    },
    assistant(
      "a1",
      "u1",
      "msg_1",
      [{ type: "thinking", thinking: "Look at the test.", signature: "sig" }],
      "00:01",
      null,
    ),
    assistant(
      "a2",
      "a1",
      "msg_1",
      [{ type: "tool_use", id: "toolu_1", name: "Read", input: { file_path: "test_io.py" } }],
      "00:02",
      "tool_use",
    ),
    user(
      "u2",
      "a2",
      [{ tool_use_id: "toolu_1", type: "tool_result", content: "def test_io(): sleep(0.1)" }],
      "00:03",
    ),
    { ...user("s1", null, "Search for sleep calls", "00:04"), isSidechain: true },
    {
      ...assistant(
        "s2",
        "s1",
        "msg_s",
        [{ type: "text", text: "Found 3 sleep calls." }],
        "00:05",
        "end_turn",
      ),
      isSidechain: true,
    },
    assistant(
      "a3",
      "u2",
      "msg_2",
      [{ type: "text", text: "The sleep races the writer." }],
      "00:06",
      "end_turn",
    ),
    {
      ...base,
      parentUuid: null,
      logicalParentUuid: "a3",
      type: "system",
      subtype: "compact_boundary",
      content: "Conversation compacted",
      compactMetadata: { trigger: "manual", preTokens: 4242 },
      uuid: "b1",
      timestamp: "2025-08-01T10:05:00.000Z",
    },
    user("c1", "b1", "This session is being continued. Summary: the test sleeps.", "05:01", {
      isCompactSummary: true,
    }),
    user("u3", "c1", "So fix it with an event.", "06:00"),
    assistant(
      "a4",
      "u3",
      "msg_3",
      [{ type: "text", text: "Done: replaced sleep with an Event." }],
      "06:05",
      "end_turn",
    ),
    user("u4", "u3", "Actually, use a condition variable.", "07:00"),
  ];
  const lines = records.map((r) => JSON.stringify(r));
  // A line cut by a crash, in the middle of the file.
  lines.splice(12, 0, '{"parentUuid":"u3","type":"assistant","mess');
  return lines;
}

/**
 * A Claude Code 2.x session (the shapes of 2.1.x files, written here, not copied): metadata
 * records without a uuid (queue operations, permission mode, generated titles, last prompt), a
 * SessionStart hook's progress record at the root, a user prompt given as a plain string, one
 * reply split over four lines (thinking, text, two tool calls; `stop_reason` null on every one)
 * with a hook's progress record between two of its parts, two tool results chained, a turn
 * duration, and metadata after the last message.
 */
export const CLAUDE_V2_SESSION_ID = "22222222-3333-4444-8555-666666666666";

const v2 = {
  isSidechain: false,
  userType: "external",
  cwd: "/home/dev/app",
  sessionId: CLAUDE_V2_SESSION_ID,
  version: "2.1.40",
  gitBranch: "main",
};

/** One line of an assistant reply (`reply` names the API message the line is a part of). */
function v2Part(uuid: string, parentUuid: string, block: unknown, second: number, reply = "1") {
  return {
    ...v2,
    parentUuid,
    type: "assistant",
    requestId: `req_v2_${reply}`,
    message: {
      model: "claude-opus-4-5",
      id: `msg_v2_${reply}`,
      type: "message",
      role: "assistant",
      content: [block],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 3, cache_read_input_tokens: 100, output_tokens: second },
    },
    uuid,
    timestamp: `2026-02-01T09:00:${String(second).padStart(2, "0")}.000Z`,
  };
}

export function claudeV2SessionLines(): string[] {
  const meta = { sessionId: CLAUDE_V2_SESSION_ID };
  const records: unknown[] = [
    { type: "queue-operation", operation: "dequeue", timestamp: "2026-02-01T08:59:59.000Z", ...meta },
    { type: "permission-mode", permissionMode: "default", ...meta },
    {
      ...v2,
      parentUuid: null,
      type: "progress",
      data: { type: "hook_progress", hookEvent: "SessionStart", hookName: "SessionStart:startup" },
      uuid: "p0",
      timestamp: "2026-02-01T09:00:00.000Z",
    },
    {
      ...v2,
      parentUuid: "p0",
      type: "user",
      message: { role: "user", content: "List the TODOs in src" },
      uuid: "q1",
      timestamp: "2026-02-01T09:00:01.000Z",
      permissionMode: "default",
    },
    { type: "ai-title", aiTitle: "Listing TODOs", ...meta },
    v2Part("r1", "q1", { type: "thinking", thinking: "Grep for TODO.", signature: "c2ln" }, 2),
    v2Part("r2", "r1", { type: "text", text: "Searching both folders." }, 3),
    {
      ...v2,
      parentUuid: "r2",
      type: "progress",
      data: { type: "hook_progress", hookEvent: "PreToolUse", hookName: "PreToolUse:Grep" },
      uuid: "p1",
      timestamp: "2026-02-01T09:00:04.000Z",
    },
    v2Part("r3", "p1", { type: "tool_use", id: "toolu_g1", name: "Grep", input: { pattern: "TODO" } }, 5),
    v2Part("r4", "r3", { type: "tool_use", id: "toolu_g2", name: "Grep", input: { pattern: "FIXME" } }, 6),
    {
      ...v2,
      parentUuid: "r4",
      type: "user",
      message: {
        role: "user",
        content: [{ tool_use_id: "toolu_g1", type: "tool_result", content: "a.ts:3" }],
      },
      uuid: "t1",
      timestamp: "2026-02-01T09:00:07.000Z",
      sourceToolAssistantUUID: "r3",
    },
    {
      ...v2,
      parentUuid: "t1",
      type: "user",
      message: {
        role: "user",
        content: [{ tool_use_id: "toolu_g2", type: "tool_result", content: "b.ts:9" }],
      },
      uuid: "t2",
      timestamp: "2026-02-01T09:00:08.000Z",
      sourceToolAssistantUUID: "r4",
    },
    v2Part("r5", "t2", { type: "text", text: "One TODO in a.ts, one FIXME in b.ts." }, 9, "2"),
    {
      ...v2,
      parentUuid: "r5",
      type: "system",
      subtype: "turn_duration",
      durationMs: 9000,
      uuid: "d1",
      timestamp: "2026-02-01T09:00:10.000Z",
    },
    { type: "ai-title", aiTitle: "Find TODO and FIXME markers", ...meta },
    { type: "last-prompt", lastPrompt: "List the TODOs in src", leafUuid: "d1", ...meta },
    { type: "permission-mode", permissionMode: "acceptEdits", ...meta },
  ];
  return records.map((r) => JSON.stringify(r));
}

/**
 * A subagent's own file (`<session>/subagents/agent-<id>.jsonl`): every line a sidechain sharing
 * the main session's id. `withAgentId: false` writes none, as older versions did.
 */
export function claudeSubagentLines(options: { withAgentId: boolean }): string[] {
  const agent = options.withAgentId ? { agentId: "a7c0ffe" } : {};
  const side = { ...v2, isSidechain: true, ...agent };
  return [
    {
      ...side,
      parentUuid: null,
      type: "user",
      message: { role: "user", content: "Count the TODOs" },
      uuid: "s-u1",
      timestamp: "2026-02-01T09:01:00.000Z",
    },
    {
      ...side,
      parentUuid: "s-u1",
      type: "assistant",
      message: {
        id: "msg_s1",
        role: "assistant",
        model: "claude-haiku-4-5",
        content: [{ type: "text", text: "Two." }],
        stop_reason: "end_turn",
      },
      uuid: "s-a1",
      timestamp: "2026-02-01T09:01:01.000Z",
    },
  ].map((r) => JSON.stringify(r));
}
