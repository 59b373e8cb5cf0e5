/**
 * A Claude Code 1.0.x session (its own JSONL shape) with two subagents started by two Task calls in
 * one reply, their lines in the main file (`isSidechain`): one with a tool call and its result, one
 * that only thought.
 */
const SESSION = "22222222-3333-4444-8555-666666666666";
const base = { userType: "external", cwd: "/home/dev/proj", sessionId: SESSION, version: "1.0.80" };
let clock = 0;

export function line(
  uuid: string,
  parentUuid: string | null,
  type: string,
  content: unknown,
  extra: object = {},
) {
  const time = new Date(Date.UTC(2025, 7, 1, 10) + 1000 * clock++).toISOString();
  const message = type === "assistant" ? { id: `msg_${uuid}`, role: type, content } : { role: type, content };
  return { ...base, isSidechain: false, parentUuid, type, message, uuid, timestamp: time, ...extra };
}

export const side = { isSidechain: true };
export const PROMPT_A = "Find every sleep() call in tests/";
export const PROMPT_B = "Read the CI logs";

export function claudeSubagentLines(): string[] {
  const records = [
    line("u1", null, "user", "Why is CI flaky?"),
    line("a1", "u1", "assistant", [
      { type: "text", text: "Two things to check." },
      task("toolu_a", "Explore", "Find sleeps", PROMPT_A),
      task("toolu_b", "general-purpose", "Read logs", PROMPT_B),
    ]),
    line("sa1", null, "user", PROMPT_A, side),
    line("sa2", "sa1", "assistant", [{ type: "tool_use", id: "toolu_g", name: "Grep", input: {} }], side),
    line("sa3", "sa2", "user", [{ type: "tool_result", tool_use_id: "toolu_g", content: "3 matches" }], side),
    line("sa4", "sa3", "assistant", [{ type: "text", text: "Found 3 sleep calls." }], side),
    line("sb1", "a1", "user", [{ type: "text", text: PROMPT_B }], side),
    line("sb2", "sb1", "assistant", [{ type: "thinking", thinking: "hmm", signature: "s" }], side),
    line("u2", "a1", "user", [{ type: "tool_result", tool_use_id: "toolu_a", content: "done" }]),
  ];
  return records.map((r) => JSON.stringify(r));
}

function task(id: string, subagentType: string, description: string, prompt: string) {
  return { type: "tool_use", id, name: "Task", input: { description, prompt, subagent_type: subagentType } };
}
