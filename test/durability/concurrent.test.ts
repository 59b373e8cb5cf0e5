import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { SessionFile } from "../../src/file/session-file.js";
import { entryMaker } from "../support/messages.js";
import { payloadEntry, splitLines, tempDir } from "./support.js";

const WRITER = fileURLToPath(new URL("./fixtures/writer-child.ts", import.meta.url));
const { dir, cleanup } = tempDir("concurrent");
after(cleanup);

interface Writer {
  name: string;
  mode: "manager" | "group";
  acks: Map<string, number>;
  exit: Promise<number | null>;
  ready: Promise<void>;
  go(): void;
}

function startWriter(path: string, name: string, count: number, size: number, mode: Writer["mode"]): Writer {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", WRITER, path, name, String(count), String(size), mode],
    {
      stdio: ["pipe", "pipe", "inherit"],
    },
  );
  const acks = new Map<string, number>();
  let buffered = "";
  let onReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    onReady = resolve;
  });
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk: string) => {
    buffered += chunk;
    const parts = buffered.split("\n");
    buffered = parts.pop() ?? "";
    for (const line of parts) {
      const [kind, id, seq] = line.split(" ");
      if (kind === "ready") onReady();
      else if (kind === "a") acks.set(id as string, Number(seq));
    }
  });
  const exit = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  return { name, mode, acks, exit, ready, go: () => child.stdin.end("go\n") };
}

interface Line {
  id: string;
  parentId: string | null;
  data?: { writer: string; seq: number; size: number; pad: string };
}

async function runWriters(label: string, writers: number, count: number, size: number): Promise<void> {
  const path = join(dir, `${label}.jsonl`);
  const make = entryMaker();
  SessionFile.create(path, make.header(), [payloadEntry("root0001", null, 10, "root", make.entry)]).close();
  const started = Array.from({ length: writers }, (_, i) =>
    startWriter(path, `w${i}`, count, size, i % 2 === 0 ? "manager" : "group"),
  );
  await Promise.all(started.map((w) => w.ready));
  for (const w of started) w.go();
  const codes = await Promise.all(started.map((w) => w.exit));
  assert.deepEqual(
    codes,
    started.map(() => 0),
    "every writer exits cleanly",
  );

  // Raw bytes first: every line whole, terminated, and parseable (no torn or interleaved line).
  const bytes = readFileSync(path);
  const raw = splitLines(bytes);
  assert.equal(raw.length, 2 + writers * count, "one line per append, nothing more");
  const parsed: Line[] = raw.slice(1).map((line, i) => {
    assert.ok(line.terminated, `line ${i + 2} is terminated`);
    return JSON.parse(line.bytes.toString("utf8")) as Line;
  });

  // Ids unique, every parent written before its child, every writer's entries complete and whole.
  const seen = new Set<string>();
  const lastOf = new Map<string, string>();
  const countOf = new Map<string, number>();
  for (const line of parsed) {
    assert.ok(!seen.has(line.id), `id ${line.id} appears twice`);
    assert.ok(line.parentId === null || seen.has(line.parentId), `parent of ${line.id} precedes it`);
    seen.add(line.id);
    if (!line.data || line.id === "root0001") continue;
    const { writer, seq, size: declared, pad } = line.data;
    assert.equal(pad.length, declared, `entry ${line.id} is whole`);
    // A writer's entries form its own chain, in order: it kept its leaf while reading the others'.
    assert.equal(line.parentId, lastOf.get(writer) ?? "root0001", `chain of ${writer}`);
    assert.equal(seq, countOf.get(writer) ?? 0, `${writer}'s entries are in order`);
    lastOf.set(writer, line.id);
    countOf.set(writer, seq + 1);
  }
  for (const w of started) {
    assert.equal(w.acks.size, count, `${w.name} acknowledged every append`);
    for (const id of w.acks.keys()) assert.ok(seen.has(id), `acknowledged ${id} of ${w.name} is in the file`);
  }

  const file = SessionFile.open(path);
  assert.deepEqual(file.getIssues(), [], "the file reads without a single issue");
  assert.equal(file.tree.size, 1 + writers * count);
  file.close();
}

test("8 processes × 500 appends on one file: no torn or interleaved line, nothing lost, ids unique, tree valid", async () => {
  await runWriters("small", 8, 500, 200);
});

test("8 processes × 25 appends of 100 KB entries on one file", async () => {
  await runWriters("large", 8, 25, 100_000);
});
