/**
 * What `stats` counts of each entry of one session, computed once: where it stands in the tree
 * (on the leaf's path, or on which abandoned branch), its usage, tool calls and errors, its model,
 * and the active time it accounts for. Every total of `stats.ts` is a fold over these facts.
 */
import type { SessionEntry } from "../core/entry.js";
import type { SessionTree } from "../core/tree.js";
import { type MessageUsage, usageOf } from "./stats-usage.js";

/** Gaps between entries longer than this are idle time by default: 10 minutes. */
export const DEFAULT_IDLE_GAP_MS = 10 * 60 * 1000;

export interface EntryFact {
  id: string;
  /** Milliseconds since the epoch; NaN when the entry's timestamp cannot be read. */
  time: number;
  onPath: boolean;
  /** Off the leaf's path: the first entry of the abandoned branch it is on; null on the path. */
  branch: string | null;
  /**
   * "provider/model" of an assistant message, and of a tool result the model that called the
   * tool (so a model's rows hold the errors of the calls it made); null for anything else.
   */
  model: string | null;
  /** Assistant messages only: what it used (null: unknown). Undefined for other entries. */
  usage?: MessageUsage | null;
  /** Names of the tools an assistant message called. */
  toolCalls: string[];
  /** A tool result: its tool's name and whether it is an error. */
  toolResult: { name: string; isError: boolean } | null;
  /**
   * The time since the entry before it in the session (by timestamp, every branch), when that gap
   * is at most the idle gap: summing it over entries gives the active time.
   */
  activeMs: number;
}

export interface FactOptions {
  /** The session was imported (its header has `importedFrom`): zero usage means unknown. */
  imported?: boolean;
  /** Gaps longer than this are idle, not active time (default `DEFAULT_IDLE_GAP_MS`). */
  idleGapMs?: number;
}

type Block = Record<string, unknown>;

/** The facts of every entry `getEntries` lists (hidden leaf markers are bookkeeping, left out). */
export function sessionFacts(tree: SessionTree, options: FactOptions = {}): EntryFact[] {
  const entries = tree.getEntries();
  const onPath = new Set(tree.getBranch().map((entry) => entry.id));
  const branches = abandonedBranchRoots(entries, onPath);
  const callModels = new Map<string, string>();
  const facts = entries.map((entry) => {
    const fact: EntryFact = {
      id: entry.id,
      time: Date.parse(entry.timestamp),
      onPath: onPath.has(entry.id),
      branch: branches.get(entry.id) ?? null,
      model: null,
      toolCalls: [],
      toolResult: null,
      activeMs: 0,
    };
    if (entry.type === "message") describeMessage(fact, entry.message as Block, options, callModels);
    return fact;
  });
  attributeActiveTime(facts, options.idleGapMs ?? DEFAULT_IDLE_GAP_MS);
  return facts;
}

function describeMessage(
  fact: EntryFact,
  message: Block,
  options: FactOptions,
  callModels: Map<string, string>,
): void {
  if (message.role === "assistant") {
    fact.model = `${String(message.provider ?? "?")}/${String(message.model ?? "?")}`;
    fact.usage = usageOf(message, options.imported === true);
    const content = Array.isArray(message.content) ? (message.content as Block[]) : [];
    for (const block of content) {
      if (block?.type !== "toolCall") continue;
      fact.toolCalls.push(String(block.name ?? ""));
      if (typeof block.id === "string") callModels.set(block.id, fact.model);
    }
  } else if (message.role === "toolResult") {
    fact.toolResult = { name: String(message.toolName ?? ""), isError: message.isError === true };
    fact.model = typeof message.toolCallId === "string" ? (callModels.get(message.toolCallId) ?? null) : null;
  }
}

/**
 * For each entry off the leaf's path, the first entry of its abandoned branch: the topmost
 * off-path entry above it (its parent is on the path, or it is a root). Each entry is climbed
 * from once: a memo ends every later climb where an earlier one passed, so this is O(n) even for
 * deep chains, and a parent cycle ends the climb where it closes.
 */
function abandonedBranchRoots(entries: readonly SessionEntry[], onPath: Set<string>): Map<string, string> {
  const byId = new Map<string, SessionEntry>();
  for (const entry of entries) byId.set(entry.id, entry);
  const rootOf = new Map<string, string>();
  const chain: string[] = [];
  for (const entry of entries) {
    if (onPath.has(entry.id) || rootOf.has(entry.id)) continue;
    chain.length = 0;
    let at = entry;
    let top = entry.id;
    // A parent cycle off the path never reaches the path: the step budget ends the climb.
    for (let budget = entries.length; budget > 0; budget--) {
      chain.push(at.id);
      top = at.id;
      const parent = at.parentId === null ? undefined : byId.get(at.parentId);
      if (!parent || onPath.has(parent.id) || parent.id === entry.id) break;
      const known = rootOf.get(parent.id);
      if (known !== undefined) {
        top = known;
        break;
      }
      at = parent;
    }
    for (const id of chain) rootOf.set(id, top);
  }
  return rootOf;
}

/**
 * Active time: the entries of every branch in time order, and each gap to the previous one that
 * is at most `idleGapMs` is given to the later entry. A longer gap (the user away, the session
 * left open) counts as idle and adds nothing. Entries without a readable time get nothing.
 */
function attributeActiveTime(facts: EntryFact[], idleGapMs: number): void {
  const dated = facts.filter((fact) => !Number.isNaN(fact.time));
  // Files are written in time order: sort only when they are not (imports, clock changes).
  let ordered = true;
  for (let i = 1; i < dated.length && ordered; i++)
    ordered = (dated[i - 1] as EntryFact).time <= (dated[i] as EntryFact).time;
  if (!ordered) dated.sort((a, b) => a.time - b.time);
  for (let i = 1; i < dated.length; i++) {
    const fact = dated[i] as EntryFact;
    const gap = fact.time - (dated[i - 1] as EntryFact).time;
    if (gap <= idleGapMs) fact.activeMs = gap;
  }
}

/** The facts of entries at or after `since` (all of them without it); undated entries drop out. */
export function factsSince(facts: EntryFact[], since: number | undefined): EntryFact[] {
  if (since === undefined) return facts;
  return facts.filter((fact) => fact.time >= since);
}
