import assert from "node:assert/strict";
import { statSync, writeFileSync } from "node:fs";
import { projectContext } from "../../../src/core/context.js";
import type { SessionEntry } from "../../../src/core/entry.js";
import { isSessionTreeError } from "../../../src/core/errors.js";
import type { SessionTreeNode } from "../../../src/core/tree.js";
import { checkEntryRead, givesWayTo } from "../../../src/core/validate.js";
import { SessionFile } from "../../../src/file/session-file.js";
import { entriesOfLine } from "../glued-oracle.js";
import { entriesOnCycles, type LineSpan, splitLines } from "../support.js";

/** The original entry lines of a base session, by their exact bytes. */
export type OriginalLines = Map<string, SessionEntry>;

export function originalLines(base: Buffer): OriginalLines {
  const map: OriginalLines = new Map();
  for (const line of splitLines(base).slice(1)) {
    map.set(line.bytes.toString("latin1"), JSON.parse(line.bytes.toString("utf8")) as SessionEntry);
  }
  return map;
}

export interface CaseOutcome {
  opened: boolean;
  issues: number;
  intactChecked: number;
}

/**
 * Writes the mutated bytes, opens them, and checks the promise: a typed error or a session; opening
 * never writes; every issue points at the start of its line; the tree holds every entry once; the
 * context projection runs; and every original line that survived byte-identical is in the tree,
 * unless an earlier valid line took its id with other content (first one wins).
 */
export function checkCase(path: string, bytes: Buffer, originals: OriginalLines): CaseOutcome {
  writeFileSync(path, bytes);
  const before = statSync(path);
  let file: SessionFile;
  try {
    file = SessionFile.open(path);
  } catch (error) {
    assert.ok(
      isSessionTreeError(error),
      `open threw an untyped error: ${(error as Error)?.stack ?? String(error)}`,
    );
    assertUnchanged(path, before);
    return { opened: false, issues: 0, intactChecked: 0 };
  }
  try {
    assertUnchanged(path, before);
    const issues = file.getIssues();
    const lines = splitLines(bytes);
    for (const issue of issues) {
      if (issue.line === undefined) continue;
      const line = lines[issue.line - 1];
      assert.ok(line, `issue ${issue.code} names line ${issue.line}, which does not exist`);
      assert.equal(issue.offset, line.offset, `issue ${issue.code} on line ${issue.line}: wrong offset`);
    }
    const entries = file.tree.getEntries();
    // Every parent cycle is reported: an issue names at least one entry of each loop.
    const stored = file.tree.getStoredEntries();
    const named = new Set(issues.filter((i) => i.code === "parent_cycle").map((i) => i.entryId));
    for (const id of entriesOnCycles(stored)) {
      const loop = loopThrough(id, stored);
      assert.ok(
        loop.some((member) => named.has(member)),
        `the parent cycle ${loop.join(" → ")} is not reported`,
      );
    }
    assert.equal(countNodes(file.tree.getTree()), entries.length, "getTree shows every entry exactly once");
    projectContext(file.tree.getBranch());
    for (const entry of entries.slice(-5)) projectContext(file.tree.getBranch(entry.id));
    const intactChecked = file.migratedFrom === null ? checkIntactLines(file, lines, originals) : 0;
    return { opened: true, issues: issues.length, intactChecked };
  } finally {
    file.close();
  }
}

function assertUnchanged(path: string, before: { size: number; mtimeMs: number }): void {
  const after = statSync(path);
  assert.equal(after.size, before.size, "opening changed the file's size");
  assert.equal(after.mtimeMs, before.mtimeMs, "opening wrote to the file");
}

function checkIntactLines(file: SessionFile, lines: LineSpan[], originals: OriginalLines): number {
  // The line that holds each id: the first kept, unless it was malformed and a well-formed copy
  // of the same type under the same parent came later (core/validate.ts `givesWayTo`).
  const holder = new Map<string, { key: string; entry: SessionEntry }>();
  const take = (entry: SessionEntry, key: string) => {
    const earlier = holder.get(entry.id);
    if (earlier === undefined || givesWayTo(earlier.entry, entry)) holder.set(entry.id, { key, entry });
  };
  // Entries glued after the header (a lost newline) come first.
  for (const glued of entriesOfLine(lines[0]?.terminated ? lines[0].bytes : Buffer.alloc(0)))
    take(glued, "glued after the header");
  // Line 1 is the header (the file opened); an unterminated last line is not part of the session.
  const intact: Array<{ key: string; original: SessionEntry }> = [];
  for (const line of lines.slice(1)) {
    if (!line.terminated) continue;
    const bytes = stripCr(line.bytes);
    const key = bytes.toString("latin1");
    const original = originals.get(key);
    const parsed = original ?? parseKept(bytes);
    if (!parsed) {
      // Records glued on one line (a lost newline) are kept: the holder of an id may be one of them.
      for (const glued of entriesOfLine(bytes)) take(glued, `glued ${key}`);
      continue;
    }
    take(parsed, key);
    if (original) intact.push({ key, original });
  }
  let checked = 0;
  for (const { key, original } of intact) {
    if (holder.get(original.id)?.key !== key) continue;
    const stored = file.tree.getStoredEntries().find((e) => e.id === original.id);
    assert.deepEqual(stored, original, `intact line ${key.slice(0, 60)}… was not recovered`);
    checked++;
  }
  return checked;
}

/** The entry a line holds as the reader keeps it (malformed ones included), if any. */
function parseKept(bytes: Buffer): SessionEntry | undefined {
  try {
    const value: unknown = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
    const checked = checkEntryRead(value);
    return checked.ok ? checked.value : undefined;
  } catch {
    return undefined;
  }
}

/** The ids of the loop that `id` is on, following parents until it comes back. */
function loopThrough(id: string, entries: readonly SessionEntry[]): string[] {
  const byId = new Map(entries.map((e) => [e.id, e]));
  const loop = [id];
  for (let current = byId.get(byId.get(id)?.parentId ?? ""); current && current.id !== id; ) {
    loop.push(current.id);
    current = current.parentId === null ? undefined : byId.get(current.parentId);
  }
  return loop;
}

function stripCr(bytes: Buffer): Buffer {
  return bytes.length > 0 && bytes[bytes.length - 1] === 13 ? bytes.subarray(0, bytes.length - 1) : bytes;
}

function countNodes(roots: SessionTreeNode[]): number {
  let count = 0;
  const stack = [...roots];
  for (let node = stack.pop(); node; node = stack.pop()) {
    count++;
    stack.push(...node.children);
  }
  return count;
}
