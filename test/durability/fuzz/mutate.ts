import type { SessionEntry } from "../../../src/core/entry.js";
import { encodeSession } from "../../../src/format/jsonl/encode.js";
import { entryMaker } from "../../support/messages.js";
import type { Random } from "../../support/random.js";
import { payloadEntry } from "../support.js";

/**
 * Random damage to session files, for the fuzz and repair tests. Every mutation works on lines
 * (byte buffers without their newline) so the checker can tell afterwards which original lines
 * survived byte-identical.
 */
type Lines = Buffer[];
type Mutation = (lines: Lines, rng: Random) => Lines;

const NL = Buffer.from("\n");

function at(lines: Lines, rng: Random, from = 0): number {
  return rng.between(Math.min(from, lines.length - 1), Math.max(0, lines.length - 1));
}

function insertAt(lines: Lines, index: number, line: Buffer): Lines {
  return [...lines.slice(0, index), line, ...lines.slice(index)];
}

function editJson(line: Buffer, edit: (value: Record<string, unknown>) => void): Buffer {
  try {
    const value = JSON.parse(line.toString("utf8")) as Record<string, unknown>;
    edit(value);
    return Buffer.from(JSON.stringify(value));
  } catch {
    return line;
  }
}

function idOf(line: Buffer | undefined): string | undefined {
  try {
    const value = JSON.parse((line ?? Buffer.alloc(0)).toString("utf8")) as { id?: unknown; type?: unknown };
    return typeof value.id === "string" && value.type !== "session" ? value.id : undefined;
  } catch {
    return undefined;
  }
}

const MUTATIONS: Record<string, Mutation> = {
  flipByte(lines, rng) {
    const i = at(lines, rng);
    const line = Buffer.from(lines[i] as Buffer);
    if (line.length > 0) {
      const j = rng.between(0, line.length - 1);
      line[j] = (line[j] as number) ^ rng.between(1, 255);
    }
    return lines.map((l, k) => (k === i ? line : l));
  },
  dropLine(lines, rng) {
    const i = at(lines, rng);
    return lines.filter((_, k) => k !== i);
  },
  cutLine(lines, rng) {
    const i = at(lines, rng);
    const line = lines[i] as Buffer;
    return lines.map((l, k) => (k === i ? line.subarray(0, rng.between(0, line.length)) : l));
  },
  /** Two lines become one: the newline between them is lost. */
  joinLines(lines, rng) {
    const i = at(lines, rng);
    if (i + 1 >= lines.length) return lines;
    const joined = Buffer.concat([lines[i] as Buffer, lines[i + 1] as Buffer]);
    return [...lines.slice(0, i), joined, ...lines.slice(i + 2)];
  },
  duplicateLine: (lines, rng) => insertAt(lines, at(lines, rng, 1), lines[at(lines, rng, 1)] as Buffer),
  conflictingDuplicate(lines, rng) {
    const source = lines[at(lines, rng, 1)] as Buffer;
    const changed = editJson(source, (v) => {
      v.timestamp = "2030-01-01T00:00:00.000Z";
    });
    return insertAt(lines, at(lines, rng, 1), changed);
  },
  swapLines(lines, rng) {
    const a = at(lines, rng);
    const b = at(lines, rng);
    const out = lines.slice();
    [out[a], out[b]] = [out[b] as Buffer, out[a] as Buffer];
    return out;
  },
  /** An entry's parent becomes a later entry: a loop when the later one descends from it. */
  cycle(lines, rng) {
    const a = at(lines, rng, 1);
    const laterId = idOf(lines[at(lines, rng, a)]);
    if (!laterId) return lines;
    return lines.map((l, k) =>
      k === a
        ? editJson(l, (v) => {
            v.parentId = laterId;
          })
        : l,
    );
  },
  selfParent(lines, rng) {
    const a = at(lines, rng, 1);
    return lines.map((l, k) =>
      k === a
        ? editJson(l, (v) => {
            v.parentId = v.id;
          })
        : l,
    );
  },
  danglingParent(lines, rng) {
    const a = at(lines, rng, 1);
    return lines.map((l, k) =>
      k === a
        ? editJson(l, (v) => {
            v.parentId = "nowhere0";
          })
        : l,
    );
  },
  hugeLine(lines, rng) {
    const size = rng.between(300_000, 800_000);
    const huge = rng.chance(0.5)
      ? Buffer.from(JSON.stringify(payloadEntry(`huge${rng.between(0, 9999)}`, null, size, "huge")))
      : Buffer.alloc(size, 0x7b);
    return insertAt(lines, at(lines, rng, 1), huge);
  },
  invalidUtf8(lines, rng) {
    const i = at(lines, rng);
    const line = lines[i] as Buffer;
    const j = rng.between(0, line.length);
    const bad = Buffer.from(
      rng.pick([[0xff], [0xc3, 0x28], [0xe2, 0x82], [0xf0, 0x9f, 0x98], [0xed, 0xa0, 0x80]]),
    );
    return lines.map((l, k) => (k === i ? Buffer.concat([line.subarray(0, j), bad, line.subarray(j)]) : l));
  },
  emptyHeader: (lines, rng) => [Buffer.from(rng.pick(["", "{}", "   ", "null"])), ...lines.slice(1)],
  crlf: (lines, rng) => lines.map((l) => (rng.chance(0.7) ? Buffer.concat([l, Buffer.from("\r")]) : l)),
  blankLines: (lines, rng) => insertAt(lines, at(lines, rng), Buffer.from(rng.pick(["", "  ", "\t", "\r"]))),
  nulBytes: (lines, rng) => insertAt(lines, at(lines, rng, 1), Buffer.alloc(rng.between(1, 64), 0)),
  deepNesting: (lines, rng) =>
    insertAt(lines, at(lines, rng, 1), Buffer.from(`${"[".repeat(60_000)}${"]".repeat(60_000)}`)),
  oddJson: (lines, rng) =>
    insertAt(
      lines,
      at(lines, rng, 1),
      Buffer.from(
        rng.pick([
          "null",
          "42",
          '"text"',
          "[]",
          '{"type":"message"}',
          '{"type":"message","id":7,"parentId":null,"timestamp":"t","message":{}}',
          '{"type":"message","id":"x","parentId":null,"timestamp":"t","message":{"role":5}}',
          '{"type":"compaction","id":"c","parentId":null,"timestamp":"t","summary":1}',
          '{"type":"session","version":3,"id":"second","timestamp":"t","cwd":"/"}',
          '{"type":"label","id":"__proto__","parentId":null,"timestamp":"t","targetId":"constructor"}',
          '{"type":"weird-future-type","id":"fut1","parentId":null,"timestamp":"t"}',
        ]),
      ),
    ),
  /** The file ends mid-line: a torn tail. Marked by the caller through `unterminated`. */
  truncate: (lines) => lines,
};

export const MUTATION_NAMES = Object.keys(MUTATIONS);

export interface MutatedFile {
  bytes: Buffer;
  applied: string[];
}

/** Applies 1–4 random mutations to a file and joins it back, sometimes ending it mid-line. */
export function mutate(original: Buffer, rng: Random): MutatedFile {
  let lines: Lines = splitOnNewline(original);
  const applied: string[] = [];
  const count = rng.between(1, 4);
  for (let i = 0; i < count && lines.length > 0; i++) {
    const name = rng.pick(MUTATION_NAMES);
    applied.push(name);
    lines = (MUTATIONS[name] as Mutation)(lines, rng);
  }
  let bytes = Buffer.concat(lines.flatMap((line) => [line, NL]));
  if (applied.includes("truncate") && bytes.length > 0)
    bytes = bytes.subarray(0, rng.between(0, bytes.length - 1));
  return { bytes, applied };
}

function splitOnNewline(data: Buffer): Lines {
  const lines: Lines = [];
  let start = 0;
  for (let nl = data.indexOf(10); nl !== -1; nl = data.indexOf(10, start)) {
    lines.push(data.subarray(start, nl));
    start = nl + 1;
  }
  if (start < data.length) lines.push(data.subarray(start));
  return lines;
}

/** Valid v3 sessions to damage: branches, labels, a compaction, names, models, unicode, a large entry. */
export function baseSessions(): Buffer[] {
  const make = entryMaker();
  const rich: SessionEntry[] = [];
  let parent: string | null = null;
  const push = (entry: SessionEntry) => {
    rich.push(entry);
    parent = entry.id;
  };
  push({
    type: "model_change",
    id: "m0000001",
    parentId: null,
    timestamp: "2026-01-01T00:00:00.000Z",
    provider: "anthropic",
    modelId: "claude",
  } as SessionEntry);
  push({
    type: "thinking_level_change",
    id: "th000001",
    parentId: parent,
    timestamp: "2026-01-01T00:00:00.500Z",
    thinkingLevel: "high",
  } as SessionEntry);
  for (let i = 0; i < 15; i++) {
    push(make.user(`u${i}`, parent, `q${i} ✓ 日本 😀`));
    push(make.assistant(`a${i}`, parent, `answer ${i}`));
  }
  push({
    type: "compaction",
    id: "cmp00001",
    parentId: parent,
    timestamp: "2026-01-02T00:00:00.000Z",
    summary: "so far",
    firstKeptEntryId: "u10",
    tokensBefore: 1234,
  } as SessionEntry);
  push(make.user("after1", parent, "after compaction"));
  rich.push(make.user("br1", "a4", "a branch"));
  rich.push({
    type: "branch_summary",
    id: "bs1",
    parentId: "br1",
    timestamp: "2026-01-03T00:00:00.000Z",
    fromId: "a9",
    summary: "left behind",
  } as SessionEntry);
  rich.push({
    type: "label",
    id: "lab1",
    parentId: "bs1",
    timestamp: "2026-01-03T00:00:01.000Z",
    targetId: "a4",
    label: "here",
  } as SessionEntry);
  rich.push({
    type: "session_info",
    id: "si1",
    parentId: "lab1",
    timestamp: "2026-01-03T00:00:02.000Z",
    name: "fuzzed",
  } as SessionEntry);
  rich.push({
    type: "custom_message",
    id: "cm1",
    parentId: "si1",
    timestamp: "2026-01-03T00:00:03.000Z",
    customType: "note",
    content: "hi",
    display: true,
  } as SessionEntry);
  rich.push(payloadEntry("pay1", "cm1", 30_000, "large", make.entry));
  rich.push({
    type: "custom",
    id: "leafmk1",
    parentId: "pay1",
    timestamp: "2026-01-03T00:00:04.000Z",
    customType: "sessiontree.leaf",
  } as SessionEntry);

  const small = [
    make.user("s1", null, "one"),
    make.assistant("s2", "s1", "two"),
    make.user("s3", "s2", "three"),
  ];
  return [
    Buffer.from(encodeSession(make.header(), rich)),
    Buffer.from(encodeSession(make.header({ id: "0195f0a0-0000-7000-8000-0000000000ff" }), small)),
  ];
}
