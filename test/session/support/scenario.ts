import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import { SessionManager } from "../../../src/session/session-manager.js";
import { type AssistantFields, messageMaker } from "../../support/messages.js";
import { assertSameSession, pairByPosition } from "./pair.js";

/** Where the next maker starts: the last timestamp made, so runOnBoth can replay from it. */
let clock = 1_760_000_000_000;
let messages = messageMaker(clock);

/** A user message; timestamps strictly increase across the whole test file. */
export const user = (text: string) => {
  const made = messages.user(text);
  clock = made.timestamp;
  return made;
};

/** An assistant text reply; `fields` replace its provider, model, content… */
export const assistant = (text: string, fields: AssistantFields = {}) => {
  const made = messages.assistant(text, fields);
  clock = made.timestamp;
  return made;
};

/** A script both managers run. It calls only pi's API, through our type (pi's is structurally alike). */
export type Script = (sm: SessionManager) => void;

/**
 * Runs a script on our in-memory manager and on pi's, asserts they present the same session, and
 * returns ours (for the scenario's own expectations).
 */
export function runOnBoth(script: Script, where: string): { ours: SessionManager; pi: PiSessionManager } {
  const ours = SessionManager.inMemory("/work/project");
  const pi = PiSessionManager.inMemory("/work/project");
  // Same message timestamps on both sides: the script's messages are made twice. Ours runs last,
  // so ids a script captures in variables are ours.
  const start = clock;
  messages = messageMaker(start);
  script(pi as unknown as SessionManager);
  messages = messageMaker(start);
  script(ours);
  assertSameSession(ours, pi, pairByPosition(ours, pi), where, { deep: true });
  return { ours, pi };
}

/** The text of each context message, for readable expectations (summaries shown by role). */
export function contextTexts(sm: SessionManager): string[] {
  return sm.buildSessionContext().messages.map((m) => {
    const message = m as { role: string; content?: unknown; summary?: string };
    if (message.role === "compactionSummary" || message.role === "branchSummary") {
      return `${message.role}:${message.summary}`;
    }
    if (typeof message.content === "string") return message.content;
    const blocks = (message.content ?? []) as { text?: string }[];
    return blocks.map((b) => b.text ?? "").join("");
  });
}
