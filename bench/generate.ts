import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import { dirname } from "node:path";

/**
 * Realistic synthetic pi sessions (v3), shaped like the pi fixtures: user prompts, assistant turns
 * with thinking, text and tool calls, tool results of varying size (a few very large ones), thinking
 * level and model changes, and a compaction whenever the context would be full, as pi does.
 * Deterministic for a given seed, so every run measures the same bytes.
 */
export interface SessionShape {
  entries: number;
  /** Abandoned branches: the user rewinds and the old continuation stays in the file. */
  abandonedBranches?: number;
  /** Share of entries that are in abandoned branches. @default 0.3 */
  abandonedShare?: number;
  /** A compaction every this many entries on the main path (0: none). @default 800 */
  compactEvery?: number;
  /** Small entries only (a short user/assistant exchange): for depth tests. */
  tiny?: boolean;
  seed?: number;
}

export interface GeneratedSession {
  path: string;
  bytes: number;
  entries: number;
  leafId: string;
  /** Entries on the leaf's path. */
  depth: number;
}

class Random {
  constructor(private state: number) {}
  next(): number {
    // mulberry32
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T;
  }
}

const WORDS =
  "the session file tree branch leaf entry append compaction context model tool result read write edit bash test build error fix function import export const return await async type interface class module package json line offset parse stream index catalog".split(
    " ",
  );
const TOOLS = ["read", "bash", "edit", "write", "grep"];

function prose(random: Random, chars: number): string {
  const out: string[] = [];
  let length = 0;
  while (length < chars) {
    const word = random.pick(WORDS);
    out.push(word);
    length += word.length + 1;
  }
  return out.join(" ");
}

/** Code-like output with newlines, quotes and backslashes, as tool results carry. */
function toolOutput(random: Random, chars: number): string {
  const lines: string[] = [];
  let length = 0;
  let n = 1;
  while (length < chars) {
    const line = `${String(n++).padStart(4)}\t  const ${random.pick(WORDS)} = "${prose(random, random.int(10, 60))}"; // \\n ok`;
    lines.push(line);
    length += line.length + 1;
  }
  return lines.join("\n");
}

/** Tool result sizes: mostly small, some medium, a few very large (a whole file, a long log). */
function resultSize(random: Random): number {
  const r = random.next();
  if (r < 0.002) return random.int(200_000, 1_000_000);
  if (r < 0.1) return random.int(5_000, 20_000);
  return random.int(100, 2_000);
}

class Writer {
  private readonly fd: number;
  private buffer: string[] = [];
  private pending = 0;
  bytes = 0;
  count = 0;
  private readonly used = new Set<string>();
  private clock = Date.parse("2026-01-05T09:00:00.000Z");

  constructor(
    path: string,
    private readonly random: Random,
  ) {
    mkdirSync(dirname(path), { recursive: true });
    this.fd = openSync(path, "w");
  }

  newId(): string {
    for (;;) {
      const id = Math.floor(this.random.next() * 0xffffffff)
        .toString(16)
        .padStart(8, "0");
      if (!this.used.has(id)) {
        this.used.add(id);
        return id;
      }
    }
  }

  tick(): { iso: string; ms: number } {
    this.clock += this.random.int(200, 20_000);
    return { iso: new Date(this.clock).toISOString(), ms: this.clock };
  }

  line(value: unknown): void {
    const text = `${JSON.stringify(value)}\n`;
    this.buffer.push(text);
    this.pending += text.length;
    this.bytes += Buffer.byteLength(text);
    if (this.pending > 4 << 20) this.flush();
  }

  entry(parentId: string | null, type: string, fields: Record<string, unknown>): string {
    const id = this.newId();
    this.line({ type, id, parentId, timestamp: this.tick().iso, ...fields });
    this.count++;
    return id;
  }

  flush(): void {
    writeSync(this.fd, this.buffer.join(""));
    this.buffer = [];
    this.pending = 0;
  }

  close(): void {
    this.flush();
    closeSync(this.fd);
  }
}

const USAGE = {
  input: 1200,
  output: 240,
  cacheRead: 48000,
  cacheWrite: 900,
  cost: { input: 0.0036, output: 0.0036, cacheRead: 0.0144, cacheWrite: 0.003375, total: 0.024375 },
};

/** One agent turn: a user prompt, then assistant/tool-result rounds, then a closing answer. */
function turn(w: Writer, random: Random, parent: string, tiny: boolean, budget: number): string {
  let at = w.entry(parent, "message", {
    message: {
      role: "user",
      content: [{ type: "text", text: prose(random, tiny ? 20 : random.int(30, 600)) }],
      timestamp: w.tick().ms,
    },
  });
  const rounds = tiny ? 0 : Math.min(random.int(0, 4), Math.floor((budget - 2) / 2));
  for (let r = 0; r < rounds; r++) {
    const callId = `toolu_${w.newId()}${w.newId()}`;
    const tool = random.pick(TOOLS);
    at = w.entry(at, "message", {
      message: assistant(w, random, [
        { type: "thinking", thinking: prose(random, random.int(40, 400)), thinkingSignature: "EoECCkYI" },
        { type: "text", text: prose(random, random.int(20, 200)) },
        { type: "toolCall", id: callId, name: tool, arguments: { path: `src/${random.pick(WORDS)}.ts` } },
      ]),
    });
    at = w.entry(at, "message", {
      message: {
        role: "toolResult",
        toolCallId: callId,
        toolName: tool,
        content: [{ type: "text", text: toolOutput(random, resultSize(random)) }],
        isError: random.next() < 0.05,
        timestamp: w.tick().ms,
      },
    });
  }
  return w.entry(at, "message", {
    message: assistant(w, random, [{ type: "text", text: prose(random, tiny ? 20 : random.int(40, 800)) }]),
  });
}

function assistant(w: Writer, random: Random, content: unknown[]): Record<string, unknown> {
  return {
    role: "assistant",
    content,
    api: "anthropic-messages",
    provider: "anthropic",
    model: random.next() < 0.9 ? "claude-sonnet-4-5" : "claude-opus-4-1",
    usage: USAGE,
    stopReason: "toolUse",
    timestamp: w.tick().ms,
  };
}

/** Writes a session of about `shape.entries` entries to `path`. */
export function generateSession(path: string, shape: SessionShape): GeneratedSession {
  const random = new Random(shape.seed ?? 42);
  const w = new Writer(path, random);
  const tiny = shape.tiny ?? false;
  const branches = shape.abandonedBranches ?? 0;
  const abandonedTotal = branches > 0 ? Math.floor(shape.entries * (shape.abandonedShare ?? 0.3)) : 0;
  const mainTotal = shape.entries - abandonedTotal;
  const branchLength = branches > 0 ? Math.max(1, Math.floor(abandonedTotal / branches)) : 0;
  const compactEvery = tiny ? 0 : (shape.compactEvery ?? 800);
  const header = { type: "session", version: 3, id: `bench-${shape.seed ?? 42}`, timestamp: w.tick().iso };
  w.line({ ...header, cwd: "/home/dev/project" });
  let tip = w.entry(null, "model_change", { provider: "anthropic", modelId: "claude-sonnet-4-5" });
  tip = w.entry(tip, "thinking_level_change", { thinkingLevel: "medium" });
  const turnEnds: string[] = [];
  let mainWritten = 2;
  let sinceCompaction = 0;
  let nextBranchAt = branches > 0 ? Math.floor(mainTotal / (branches + 1)) : Number.POSITIVE_INFINITY;
  let branchesLeft = branches;
  while (mainWritten < mainTotal) {
    if (mainWritten >= nextBranchAt && branchesLeft > 0) {
      // The continuation the user later rewinds away from.
      let at = tip;
      for (let written = 0; written < branchLength; ) {
        const before = w.count;
        at = turn(w, random, at, tiny, branchLength - written);
        written += w.count - before;
      }
      branchesLeft--;
      nextBranchAt += Math.floor(mainTotal / (branches + 1));
    }
    const before = w.count;
    tip = turn(w, random, tip, tiny, mainTotal - mainWritten);
    const added = w.count - before;
    mainWritten += added;
    sinceCompaction += added;
    turnEnds.push(tip);
    if (!tiny && random.next() < 0.02) {
      tip = w.entry(tip, "thinking_level_change", { thinkingLevel: random.pick(["low", "medium", "high"]) });
      mainWritten++;
    }
    if (compactEvery > 0 && sinceCompaction >= compactEvery) {
      const kept = turnEnds[Math.max(0, turnEnds.length - 4)] as string;
      tip = w.entry(tip, "compaction", {
        summary: `# Context Checkpoint\n\n${prose(random, 2_000)}`,
        firstKeptEntryId: kept,
        tokensBefore: 180_000,
      });
      mainWritten++;
      sinceCompaction = 0;
    }
  }
  w.close();
  return { path, bytes: w.bytes, entries: w.count, leafId: tip, depth: mainWritten };
}
