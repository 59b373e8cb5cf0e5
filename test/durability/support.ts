import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import type { CustomEntry, SessionEntry } from "../../src/core/entry.js";
import { SessionFile } from "../../src/file/session-file.js";
import { entryMaker } from "../support/messages.js";

/** A fresh temporary folder; `cleanup` removes it. */
export function tempDir(prefix: string): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), `sessiontree-${prefix}-`));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A `custom` entry carrying a payload whose length is recorded, so a reader can tell it is whole.
 * `entry` is the caller's `entryMaker().entry`, so its timestamp follows the caller's other entries.
 */
/** Puts bytes in a session file of a folder of its own under `dir`, named as pi names them. */
export function filePlacer(dir: string): (bytes: Buffer) => string {
  let n = 0;
  return (bytes) => {
    const folder = join(dir, `f${n++}`);
    mkdirSync(folder);
    const path = join(folder, "2026-01-01T00-00-00-000Z_0195f0a0-0000-7000-8000-00000000c0de.jsonl");
    writeFileSync(path, bytes);
    return path;
  };
}

export function payloadEntry(
  id: string,
  parentId: string | null,
  size: number,
  tag: string,
  entry = entryMaker().entry,
): SessionEntry {
  return entry("custom", id, parentId, {
    customType: "durability-test",
    data: { tag, size, pad: "p".repeat(size) },
  });
}

/** A line of a file with its place: the bytes exclude the newline; `end` is just past the newline. */
export interface LineSpan {
  bytes: Buffer;
  offset: number;
  end: number;
  terminated: boolean;
}

/** Splits file bytes at `\n` the way the decoder does (a trailing piece without newline is unterminated). */
export function splitLines(data: Buffer): LineSpan[] {
  const lines: LineSpan[] = [];
  let start = 0;
  while (start < data.length) {
    const newline = data.indexOf(10, start);
    if (newline === -1) {
      lines.push({ bytes: data.subarray(start), offset: start, end: data.length, terminated: false });
      break;
    }
    lines.push({ bytes: data.subarray(start, newline), offset: start, end: newline + 1, terminated: true });
    start = newline + 1;
  }
  return lines;
}

/** The quarantine files a writer left beside `path` for a torn tail that started at `offset`. */
export function quarantinesAt(path: string, offset: number): Buffer[] {
  const prefix = `${basename(path)}.torn-${offset}-`;
  return readdirSync(dirname(path))
    .filter((name) => name.startsWith(prefix))
    .map((name) => readFileSync(join(dirname(path), name)));
}

/** Ids of entries that are on a parent cycle (their chain leads back to them), found independently. */
export function entriesOnCycles(entries: readonly { id: string; parentId: string | null }[]): Set<string> {
  const byId = new Map(entries.map((e) => [e.id, e]));
  const onCycle = new Set<string>();
  for (const start of entries) {
    let current = start.parentId === null ? undefined : byId.get(start.parentId);
    for (let steps = 0; current && steps <= entries.length; steps++) {
      if (current.id === start.id) {
        onCycle.add(start.id);
        break;
      }
      current = current.parentId === null ? undefined : byId.get(current.parentId);
    }
  }
  return onCycle;
}

/**
 * For the locking tests: `newSession()` makes a session file in `dir` holding one root entry
 * (`root0001`); `make` is the entry maker it used, for the test's own entries.
 */
export function lockTestSessions(dir: string): {
  newSession: () => string;
  make: ReturnType<typeof entryMaker>;
} {
  const make = entryMaker();
  let files = 0;
  const newSession = () => {
    const path = join(dir, `s${++files}.jsonl`);
    SessionFile.create(path, make.header(), [make.user("root0001", null, "root")]).close();
    return path;
  };
  return { newSession, make };
}

/** A write (for `SessionFile.write`) of one `custom` entry tagged `tag`. */
export function custom(tag: string) {
  return (tree: SessionFile["tree"]) => [
    tree.append<CustomEntry>({ type: "custom", customType: "t", data: { tag } }),
  ];
}

/** The entries of the file on disk, header left out. */
export function entriesOnDisk(path: string): SessionEntry[] {
  return splitLines(readFileSync(path))
    .slice(1)
    .map((line) => JSON.parse(line.bytes.toString("utf8")) as SessionEntry);
}
