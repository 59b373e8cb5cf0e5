import type { SessionEntry, SessionHeader } from "../../src/core/entry.js";
import type { AssistantMessage } from "../../src/core/messages.js";

/** What a test may set on an assistant message besides its text. */
export type AssistantFields = Partial<
  Pick<AssistantMessage, "content" | "provider" | "model" | "api" | "stopReason" | "errorMessage">
>;

/**
 * User, assistant and tool-result messages as pi writes them, with strictly increasing timestamps,
 * so listings and "most recent" have a well-defined order in tests.
 */
export function messageMaker(start = 1_760_000_000_000) {
  let clock = start;
  const user = (text: string) => ({ role: "user" as const, content: text, timestamp: ++clock });
  /** A text reply; `fields` replace its provider, model, content… (a tool call, an error). */
  const assistant = (text: string, fields: AssistantFields = {}) => ({
    role: "assistant" as const,
    content: [{ type: "text" as const, text }] as AssistantMessage["content"],
    api: "anthropic-messages",
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2 },
    stopReason: "stop",
    ...fields,
    timestamp: ++clock,
  });
  const toolResult = (toolCallId: string, toolName: string, text: string, isError = false) => ({
    role: "toolResult" as const,
    toolCallId,
    toolName,
    content: [{ type: "text" as const, text }],
    isError,
    timestamp: ++clock,
  });
  return { user, assistant, toolResult };
}

type Fields = Record<string, unknown>;

/**
 * Whole entries (id, parentId, timestamp) for tests that build a tree by hand rather than through a
 * SessionManager: core, format, stores, durability. Each entry is one second after the previous,
 * and a message's own timestamp is its entry's, as pi writes them, so ordering by time is defined.
 * Each call of `entryMaker` has its own clock: two tests never shift each other's timestamps.
 */
export function entryMaker(start = Date.parse("2026-01-01T00:00:00.000Z")) {
  let clock = start;
  const tick = () => {
    clock += 1000;
    return clock;
  };
  const messages = messageMaker();

  /** Any entry type, with the fields it needs (unchecked: tests build invalid ones on purpose). */
  const entry = (type: string, id: string, parentId: string | null, fields: Fields = {}) =>
    ({ type, id, parentId, timestamp: new Date(tick()).toISOString(), ...fields }) as SessionEntry;

  const message = (id: string, parentId: string | null, body: Fields) => {
    const made = entry("message", id, parentId);
    return { ...made, message: { ...body, timestamp: clock } } as SessionEntry;
  };

  /** A user message; its text defaults to its id, so a projected context shows which entry it was. */
  const user = (id: string, parentId: string | null, text = id) => message(id, parentId, messages.user(text));

  /** An assistant text reply; `fields` replace message fields (provider, model, content…). */
  const assistant = (id: string, parentId: string | null, text = id, fields: AssistantFields = {}) =>
    message(id, parentId, messages.assistant(text, fields));

  /** Line 1 of a session file, version 3. */
  const header = (fields: Partial<SessionHeader> = {}): SessionHeader => ({
    type: "session",
    version: 3,
    id: "0195f0a0-0000-7000-8000-000000000001",
    timestamp: new Date(start).toISOString(),
    cwd: "/tmp/project",
    ...fields,
  });

  return { entry, user, assistant, header };
}
