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
