import type { Random } from "../../support/random.js";
import type { Pair } from "./pair.js";

type PiMessage = Parameters<Pair["pi"]["appendMessage"]>[0];
type OurMessage = Parameters<Pair["ours"]["appendMessage"]>[0];

const PROVIDERS = [
  ["anthropic", "claude-sonnet-4-5"],
  ["openai", "gpt-5.1-codex"],
  ["google", "gemini-2.5-pro"],
] as const;
const THINKING = ["off", "minimal", "low", "medium", "high"];
const LABELS = ["checkpoint", "good", "bad", "", undefined];
const NAMES = ["refactor", "  padded name  ", "", "bugfix"];

/** Message timestamps are given by the caller, so both sides get identical messages. */
let messageClock = 1_760_000_000_000;

function textBlock(rng: Random): { type: "text"; text: string } {
  return { type: "text", text: `text ${rng.int(1_000_000)}` };
}

function randomMessage(rng: Random): OurMessage {
  const timestamp = ++messageClock;
  const kind = rng.int(3);
  if (kind === 0) {
    return {
      role: "user",
      content: rng.chance(0.5) ? `hello ${rng.int(1000)}` : [textBlock(rng)],
      timestamp,
    };
  }
  if (kind === 1) {
    const [provider, model] = rng.pick(PROVIDERS);
    return {
      role: "assistant",
      content: [
        textBlock(rng),
        { type: "toolCall", id: `call_${timestamp}`, name: "read", arguments: { path: "a" } },
      ],
      api: "anthropic-messages",
      provider,
      model,
      usage: { input: 1, output: 2, cacheRead: 0, cacheWrite: 0, totalTokens: 3 },
      stopReason: "toolUse",
      timestamp,
    };
  }
  return {
    role: "toolResult",
    toolCallId: `call_${timestamp - 1}`,
    toolName: "read",
    content: [textBlock(rng)],
    isError: rng.chance(0.2),
    timestamp,
  };
}

/** Ids of every entry of ours, in order (the pool random targets are drawn from). */
function ourIds(pair: Pair): string[] {
  return pair.ours.getEntries().map((e) => e.id);
}

/** Runs `fn` on both sides and records the id pair of the entry each created. */
function both(pair: Pair, ours: () => string, pi: () => string): void {
  pair.ids.add(ours(), pi());
}

type Op = (pair: Pair, rng: Random) => string;

const OPS: { weight: number; name: string; run: Op }[] = [
  {
    weight: 40,
    name: "appendMessage",
    run: (pair, rng) => {
      const message = randomMessage(rng);
      both(
        pair,
        () => pair.ours.appendMessage(structuredClone(message)),
        () => pair.pi.appendMessage(structuredClone(message) as PiMessage),
      );
      return `appendMessage(${message.role})`;
    },
  },
  {
    weight: 5,
    name: "thinking",
    run: (pair, rng) => {
      const level = rng.pick(THINKING);
      both(
        pair,
        () => pair.ours.appendThinkingLevelChange(level),
        () => pair.pi.appendThinkingLevelChange(level),
      );
      return `appendThinkingLevelChange(${level})`;
    },
  },
  {
    weight: 5,
    name: "model",
    run: (pair, rng) => {
      const [provider, model] = rng.pick(PROVIDERS);
      both(
        pair,
        () => pair.ours.appendModelChange(provider, model),
        () => pair.pi.appendModelChange(provider, model),
      );
      return `appendModelChange(${provider})`;
    },
  },
  { weight: 6, name: "compaction", run: compaction },
  {
    weight: 6,
    name: "custom",
    run: (pair, rng) => {
      const type = rng.pick(["ext-a", "ext-b"]);
      const data = rng.chance(0.8) ? { n: rng.int(100) } : undefined;
      both(
        pair,
        () => pair.ours.appendCustomEntry(type, structuredClone(data)),
        () => pair.pi.appendCustomEntry(type, structuredClone(data)),
      );
      return `appendCustomEntry(${type})`;
    },
  },
  {
    weight: 6,
    name: "customMessage",
    run: (pair, rng) => {
      const content = rng.chance(0.5) ? `note ${rng.int(100)}` : [textBlock(rng)];
      const display = rng.chance(0.5);
      const details = rng.chance(0.5) ? { k: rng.int(10) } : undefined;
      both(
        pair,
        () => pair.ours.appendCustomMessageEntry("ext-msg", structuredClone(content), display, details),
        () => pair.pi.appendCustomMessageEntry("ext-msg", structuredClone(content), display, details),
      );
      return "appendCustomMessageEntry";
    },
  },
  {
    weight: 4,
    name: "sessionInfo",
    run: (pair, rng) => {
      const name = rng.pick(NAMES);
      both(
        pair,
        () => pair.ours.appendSessionInfo(name),
        () => pair.pi.appendSessionInfo(name),
      );
      return `appendSessionInfo(${JSON.stringify(name)})`;
    },
  },
  {
    weight: 8,
    name: "label",
    run: (pair, rng) => {
      const pool = ourIds(pair);
      if (pool.length === 0) return "label skipped (empty)";
      const target = rng.pick(pool);
      const label = rng.pick(LABELS);
      both(
        pair,
        () => pair.ours.appendLabelChange(target, label),
        () => pair.pi.appendLabelChange(pair.ids.pi(target), label),
      );
      return `appendLabelChange(${target}, ${JSON.stringify(label)})`;
    },
  },
  {
    weight: 10,
    name: "branch",
    run: (pair, rng) => {
      const pool = ourIds(pair);
      if (pool.length === 0) return "branch skipped (empty)";
      const target = rng.pick(pool);
      pair.ours.branch(target);
      pair.pi.branch(pair.ids.pi(target));
      return `branch(${target})`;
    },
  },
  {
    weight: 2,
    name: "resetLeaf",
    run: (pair) => {
      pair.ours.resetLeaf();
      pair.pi.resetLeaf();
      return "resetLeaf()";
    },
  },
  {
    weight: 6,
    name: "branchWithSummary",
    run: (pair, rng) => {
      const pool = ourIds(pair);
      const target = pool.length === 0 || rng.chance(0.1) ? null : rng.pick(pool);
      const summary = rng.chance(0.2) ? "" : `summary ${rng.int(1000)}`;
      const details = rng.chance(0.5) ? { files: ["a.ts"] } : undefined;
      const fromHook = rng.chance(0.3) ? true : undefined;
      both(
        pair,
        () => pair.ours.branchWithSummary(target, summary, details, fromHook),
        () =>
          pair.pi.branchWithSummary(target === null ? null : pair.ids.pi(target), summary, details, fromHook),
      );
      return `branchWithSummary(${target})`;
    },
  },
  { weight: 1, name: "createBranchedSession", run: createBranchedSession },
];

const TOTAL_WEIGHT = OPS.reduce((sum, op) => sum + op.weight, 0);

function compaction(pair: Pair, rng: Random): string {
  const path = pair.ours.getBranch().map((e) => e.id);
  const all = ourIds(pair);
  const roll = rng.next();
  let kept: string;
  if (roll < 0.6 && path.length > 0) kept = rng.pick(path);
  else if (roll < 0.85 && all.length > 0) kept = rng.pick(all);
  else kept = "feedc0de";
  const tokens = rng.int(200_000);
  const details = rng.chance(0.3) ? { readFiles: ["x"] } : undefined;
  both(
    pair,
    () => pair.ours.appendCompaction(`compacted ${tokens}`, kept, tokens, details),
    () => pair.pi.appendCompaction(`compacted ${tokens}`, pair.ids.pi(kept), tokens, details),
  );
  return `appendCompaction(kept ${kept}${path.includes(kept) ? "" : ", off path"})`;
}

/**
 * Both sides switch to a new session holding one path. Path entries keep their ids; the label
 * entries re-created at the end are new on both sides and are paired by position.
 */
function createBranchedSession(pair: Pair, rng: Random): string {
  const pool = ourIds(pair);
  if (pool.length === 0) return "createBranchedSession skipped (empty)";
  const target = rng.pick(pool);
  pair.ours.createBranchedSession(target);
  pair.pi.createBranchedSession(pair.ids.pi(target));
  const ours = pair.ours.getEntries();
  const pi = pair.pi.getEntries();
  ours.forEach((entry, i) => {
    const counterpart = pi[i];
    if (entry.type === "label" && counterpart?.type === "label") pair.ids.add(entry.id, counterpart.id);
  });
  return `createBranchedSession(${target})`;
}

/** The operation names `randomOp` descriptions start with. */
export const OP_NAMES = [
  "appendMessage",
  "appendThinkingLevelChange",
  "appendModelChange",
  "appendCompaction",
  "appendCustomEntry",
  "appendCustomMessageEntry",
  "appendSessionInfo",
  "appendLabelChange",
  "branch",
  "resetLeaf",
  "branchWithSummary",
  "createBranchedSession",
];

/** Applies one random operation to both managers; returns what it did (for failure messages). */
export function randomOp(pair: Pair, rng: Random): string {
  let roll = rng.next() * TOTAL_WEIGHT;
  for (const op of OPS) {
    roll -= op.weight;
    if (roll < 0) return op.run(pair, rng);
  }
  return (OPS[0] as (typeof OPS)[number]).run(pair, rng);
}
