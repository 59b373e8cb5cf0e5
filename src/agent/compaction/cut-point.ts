import { contextRole } from "../../core/context.js";
import type { SessionEntry } from "../../core/entry.js";
import type { AgentMessage, AssistantMessage, ToolResultMessage } from "../../core/messages.js";
import { estimateTokens } from "./tokens.js";

/**
 * pi's valid cut points: a kept range may start at any entry that reaches the model as a message
 * (core's `CONTEXT_ROLES`: a user, assistant, custom or summary message), never at a tool result
 * (its call would be summarized away), a setting or metadata. Unknown types are never cut at.
 */
function isCutPoint(entry: SessionEntry): boolean {
  if (contextRole(entry.type) !== "message") return false;
  return entry.type !== "message" || entry.message.role !== "toolResult";
}

/** Where a turn starts, for a cut inside one: a user's (or a bash) message, a custom or summary message. */
function startsTurn(entry: SessionEntry): boolean {
  if (contextRole(entry.type) !== "message") return false;
  return entry.type !== "message" || entry.message.role === "user" || entry.message.role === "bashExecution";
}

export interface CutPoint {
  /** Index (in the path) of the first entry kept verbatim. */
  firstKeptIndex: number;
  /** When the cut falls inside a turn: the index of the user message that started it, else -1. */
  turnStartIndex: number;
}

/**
 * Where to cut a path so that about `keepRecentTokens` of the newest messages stay verbatim.
 * Cuts only before a user, assistant, custom or summary message — never before a tool result —
 * and then moves earlier while a kept tool result would lose its call, so a pair is never split.
 * Only entries in [start, end) are considered (start: the previous compaction's kept boundary).
 */
export function findCutPoint(
  path: readonly SessionEntry[],
  start: number,
  end: number,
  keepRecentTokens: number,
): CutPoint {
  const cuts = validCuts(path, start, end);
  if (cuts.length === 0) return { firstKeptIndex: start, turnStartIndex: -1 };
  let cut = cuts[0] as number;
  let tokens = 0;
  for (let i = end - 1; i >= start; i--) {
    const entry = path[i] as SessionEntry;
    if (entry.type !== "message") continue;
    tokens += estimateTokens(entry.message as AgentMessage);
    if (tokens >= keepRecentTokens) {
      cut = cuts.find((c) => c >= i) ?? cut;
      break;
    }
  }
  cut = keepToolPairs(path, start, end, cut);
  // Settings entries (model, thinking level) just before the cut travel with the kept part.
  while (cut > start) {
    const previous = path[cut - 1] as SessionEntry;
    if (previous.type === "message" || previous.type === "compaction") break;
    cut--;
  }
  const entry = path[cut] as SessionEntry;
  const isUser = entry.type === "message" && entry.message.role === "user";
  return { firstKeptIndex: cut, turnStartIndex: isUser ? -1 : turnStart(path, cut, start) };
}

function validCuts(path: readonly SessionEntry[], start: number, end: number): number[] {
  const cuts: number[] = [];
  for (let i = start; i < end; i++) {
    if (isCutPoint(path[i] as SessionEntry)) cuts.push(i);
  }
  return cuts;
}

/** Moves the cut back until every kept tool result has its call kept too. */
function keepToolPairs(path: readonly SessionEntry[], start: number, end: number, cut: number): number {
  for (;;) {
    const callIndex = new Map<string, number>();
    for (let i = start; i < cut; i++) {
      const entry = path[i] as SessionEntry;
      if (entry.type !== "message" || entry.message.role !== "assistant") continue;
      for (const block of (entry.message as AssistantMessage).content)
        if (block.type === "toolCall") callIndex.set(block.id, i);
    }
    let earliest = cut;
    for (let i = cut; i < end; i++) {
      const entry = path[i] as SessionEntry;
      if (entry.type !== "message" || entry.message.role !== "toolResult") continue;
      const at = callIndex.get((entry.message as ToolResultMessage).toolCallId);
      if (at !== undefined && at < earliest) earliest = at;
    }
    if (earliest === cut) return cut;
    cut = earliest;
  }
}

function turnStart(path: readonly SessionEntry[], index: number, start: number): number {
  for (let i = index; i >= start; i--) {
    if (startsTurn(path[i] as SessionEntry)) return i;
  }
  return -1;
}

/** True when some tool result at or after `cut` answers a call before it (the property tests check). */
export function splitsToolPair(path: readonly SessionEntry[], cut: number): boolean {
  return keepToolPairs(path, 0, path.length, cut) !== cut;
}
