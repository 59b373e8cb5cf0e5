import assert from "node:assert/strict";
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import type { SessionEntry } from "../../src/core/entry.js";
import { isSessionTreeError } from "../../src/core/errors.js";
import { fsckFile } from "../../src/file/fsck.js";
import { repairFile } from "../../src/file/repair.js";
import { SessionFile } from "../../src/file/session-file.js";
import { Random } from "../support/random.js";
import { baseSessions, mutate } from "./fuzz/mutate.js";
import { entriesOfLine } from "./glued-oracle.js";
import { entriesOnCycles, splitLines, tempDir } from "./support.js";

const { dir, cleanup } = tempDir("repair");
after(cleanup);

const bases = baseSessions();

/** Damaged files, deterministic: the seeded mutations of the fuzz test, several per kind. */
function damagedFiles(count: number, seed: number): { name: string; bytes: Buffer }[] {
  const rng = new Random(seed);
  return Array.from({ length: count }, (_, i) => {
    const { bytes, applied } = mutate(rng.pick(bases), rng);
    return { name: `${i}-${applied.join("+")}`, bytes };
  });
}

let n = 0;
function place(bytes: Buffer): string {
  const folder = join(dir, `f${n++}`);
  mkdirSync(folder);
  const path = join(folder, "2026-01-01T00-00-00-000Z_0195f0a0-0000-7000-8000-000000000001.jsonl");
  writeFileSync(path, bytes);
  return path;
}

/**
 * The entries of a file's lines that read as valid entries, glued records included (a line that
 * lost its newline), the first of each id: what repair must keep.
 */
function validLines(bytes: Buffer): SessionEntry[] {
  const out: SessionEntry[] = [];
  const seen = new Set<string>();
  // Line 1 too: an entry glued after the header is kept, as is an entry where the header was lost.
  for (const line of splitLines(bytes)) {
    if (!line.terminated) continue;
    for (const entry of entriesOfLine(line.bytes)) {
      if (seen.has(entry.id)) continue;
      seen.add(entry.id);
      out.push(entry);
    }
  }
  return out;
}

test("fsck never writes: bytes and mtime unchanged, on clean and damaged files alike", () => {
  for (const { name, bytes } of [
    ...bases.map((b, i) => ({ name: `base${i}`, bytes: b })),
    ...damagedFiles(120, 1),
  ]) {
    const path = place(bytes);
    const before = statSync(path);
    let report: ReturnType<typeof fsckFile> | undefined;
    try {
      report = fsckFile(path);
    } catch (error) {
      assert.ok(isSessionTreeError(error), `${name}: fsck threw ${String(error)}`);
    }
    const afterStat = statSync(path);
    assert.deepEqual(readFileSync(path), bytes, `${name}: fsck changed the bytes`);
    assert.equal(afterStat.mtimeMs, before.mtimeMs, `${name}: fsck touched the file`);
    if (report && name.startsWith("base")) assert.equal(report.ok, true, `${name}: a clean file is ok`);
    if (report)
      for (const issue of report.issues) assert.ok(issue.code && issue.message, `${name}: issue shape`);
  }
});

test("repair: a clean file that ours and pi open alike, the original kept byte-for-byte, every valid line kept", () => {
  let repaired = 0;
  for (const { name, bytes } of damagedFiles(80, 2)) {
    const path = place(bytes);
    let report: ReturnType<typeof repairFile>;
    try {
      report = repairFile(path);
    } catch (error) {
      // Only a file with nothing in it to save may be refused, and then it is left alone.
      assert.ok(isSessionTreeError(error), `${name}: repair threw ${String(error)}`);
      assert.deepEqual(readFileSync(path), bytes, `${name}: a refused repair changed the file`);
      continue;
    }
    if (!report.changed) {
      assert.deepEqual(readFileSync(path), bytes, `${name}: "unchanged" but the bytes differ`);
      continue;
    }
    repaired++;
    assert.ok(report.backupPath, `${name}: no backup`);
    assert.deepEqual(readFileSync(report.backupPath), bytes, `${name}: backup is not byte-identical`);
    if (report.actions.length === 0) {
      // Only formatting may change silently (CRLF, blank lines): the entries must be the same.
      const reread = SessionFile.open(path);
      assert.deepEqual(
        reread.tree.getStoredEntries(),
        validLines(bytes),
        `${name}: changed without saying what it did`,
      );
      reread.close();
    }

    const check = fsckFile(path);
    assert.equal(check.ok, true, `${name}: repaired file still has errors: ${JSON.stringify(check.issues)}`);
    assert.equal(check.tornTail, null, `${name}: repaired file has a torn tail`);
    const ours = SessionFile.open(path);
    const kept = new Map(ours.tree.getStoredEntries().map((e) => [e.id, e]));
    ours.close();
    const cycleBreaks = new Set(report.actions.filter((a) => a.kind === "broke_cycle").map((a) => a.entryId));
    // A header damaged into an old version migrates the file, which gives entries new ids (as pi does).
    const migrated = report.actions.some((a) => a.kind === "migrated");
    if (migrated) assert.equal(kept.size, validLines(bytes).length, `${name}: migrated entry count`);
    else
      for (const entry of validLines(bytes)) {
        const found = kept.get(entry.id);
        assert.ok(found, `${name}: valid line ${entry.id} was dropped`);
        if (!cycleBreaks.has(entry.id)) assert.deepEqual(found, entry, `${name}: entry ${entry.id} changed`);
      }

    // pi walks parent chains without a guard: a loop left in the file would hang it.
    assert.deepEqual([...entriesOnCycles([...kept.values()])], [], `${name}: a parent cycle survived repair`);
    const repairedBytes = readFileSync(path);
    const pi = PiSessionManager.open(path, join(path, ".."));
    assert.equal(pi.getEntries().length, kept.size, `${name}: pi reads a different number of entries`);
    pi.buildSessionContext();
    assert.deepEqual(readFileSync(path), repairedBytes, `${name}: pi rewrote the repaired file`);

    const again = repairFile(path);
    assert.equal(again.changed, false, `${name}: a second repair still changes the file`);
  }
  assert.ok(repaired > 40, `only ${repaired} files needed repair`);
});

test("a self-parent entry is a parent cycle: fsck reports it, repair breaks it, pi opens the result", () => {
  const text = `${JSON.stringify({ type: "session", version: 3, id: "0195f0a0-0000-7000-8000-0000000000aa", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/tmp/project" })}
${JSON.stringify({ type: "message", id: "self0001", parentId: "self0001", timestamp: "2026-01-01T00:00:01.000Z", message: { role: "user", content: "me", timestamp: 1 } })}
`;
  const path = place(Buffer.from(text));
  const report = fsckFile(path);
  assert.deepEqual(
    report.issues.map((i) => [i.code, i.entryId]),
    [["parent_cycle", "self0001"]],
  );
  assert.equal(report.ok, false);
  const repaired = repairFile(path);
  assert.deepEqual(
    repaired.actions.map((a) => [a.kind, a.entryId]),
    [["broke_cycle", "self0001"]],
  );
  const pi = PiSessionManager.open(path, join(path, ".."));
  assert.equal(pi.buildSessionContext().messages.length, 1);
});
