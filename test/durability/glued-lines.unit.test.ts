import assert from "node:assert/strict";
import { appendFileSync, mkdtempSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import { projectContext } from "../../src/core/context.js";
import type { SessionEntry } from "../../src/core/entry.js";
import { isSessionTreeError } from "../../src/core/errors.js";
import type { SessionIssue } from "../../src/core/issues.js";
import { fsckFile, isFinding, treeOf } from "../../src/file/fsck.js";
import { readThroughIndex } from "../../src/file/indexed-reader.js";
import { readSessionFile } from "../../src/file/read-file.js";
import { repairFile } from "../../src/file/repair.js";
import { SessionFile } from "../../src/file/session-file.js";
import { encodeLine } from "../../src/format/jsonl/encode.js";
import { openPathOnly } from "../../src/session/context-resume.js";
import { SessionManager } from "../../src/session/session-manager.js";
import { JsonlStore } from "../../src/store/jsonl/jsonl-store.js";
import { MemoryStore } from "../../src/store/memory/memory-store.js";
import { entryMaker } from "../support/messages.js";
import { type GluedShape, gluedCorpus } from "./glued-corpus.js";
import { filePlacer, splitLines, tempDir } from "./support.js";

const { dir, cleanup } = tempDir("glued");
after(cleanup);

const place = filePlacer(dir);

/**
 * The entries the sidecar index holds: complete lines only, so not a glued line the file ends
 * with, without its newline (the session holds those records: a resume then reads the file whole).
 */
const indexed = (shape: GluedShape) =>
  shape.unterminated ? shape.entries.slice(0, -shape.glued.records) : shape.entries;

function findingAt(issues: SessionIssue[], shape: GluedShape): SessionIssue | undefined {
  return issues.find((i) => i.code === "glued_records" && i.line === shape.glued.line);
}

const corpus = gluedCorpus();

describe("every reader keeps every record of a glued line", () => {
  for (const shape of corpus) {
    describe(shape.name, () => {
      test("fsck reports the split with its line and byte offset, and writes nothing", () => {
        const path = place(shape.bytes);
        const before = statSync(path).mtimeMs;
        const report = fsckFile(path);
        const finding = findingAt(report.issues, shape);
        assert.ok(finding, JSON.stringify(report.issues));
        assert.equal(finding.offset, shape.glued.offset);
        assert.ok(isFinding(finding), "a glued line is a finding");
        assert.match(finding.message, new RegExp(`${shape.glued.records} records? `));
        if (!shape.damaged)
          assert.match(finding.message, new RegExp(`${shape.glued.records} records on one line`));
        assert.equal(report.entries, shape.entries.length);
        assert.deepEqual(readFileSync(path), shape.bytes);
        assert.equal(statSync(path).mtimeMs, before);
      });

      test("repair writes one record per line, keeps every one, and the file then fscks clean", () => {
        const path = place(shape.bytes);
        const report = repairFile(path);
        assert.equal(report.changed, true);
        assert.deepEqual(
          readFileSync(report.backupPath as string),
          shape.bytes,
          "original kept byte for byte",
        );
        const kinds = report.actions.map((a) => a.kind);
        assert.ok(kinds.includes("split_line"), kinds.join());
        if (shape.damaged) assert.ok(kinds.includes("dropped_part"), kinds.join());
        assert.ok(!kinds.includes("dropped_line"), "no whole line is dropped");
        const lines = splitLines(readFileSync(path));
        assert.equal(lines.length, 1 + shape.entries.length, "a line per record");
        assert.ok(lines.every((l) => l.terminated));
        const written = lines.slice(1).map((l) => JSON.parse(l.bytes.toString("utf8")) as SessionEntry);
        assert.deepEqual(written, shape.entries);
        const check = fsckFile(path);
        assert.deepEqual(check.issues.filter(isFinding), []);
        assert.equal(check.ok, true);
        assert.equal(repairFile(path).changed, false, "a second repair changes nothing");
        const pi = PiSessionManager.open(path, join(path, ".."));
        assert.equal(pi.getEntries().length, shape.entries.length, "pi reads every record after repair");
        assert.equal(pi.getLeafId(), shape.entries.at(-1)?.id);
      });

      test("SessionManager opens every record; the leaf is the last one read", () => {
        const path = place(shape.bytes);
        const manager = SessionManager.open(path);
        assert.deepEqual(manager.getEntries(), shape.entries);
        assert.equal(manager.getLeafId(), shape.entries.at(-1)?.id);
        assert.ok(findingAt(manager.getIssues(), shape));
      });

      test("the sidecar-index resume gives what the full read gives, cold and warm", () => {
        const path = place(shape.bytes);
        const full = readSessionFile(path);
        const branch = treeOf(full).getBranch();
        // A file ending without its newline is read whole: the index stops before its last line.
        for (const state of shape.unterminated ? ["none", "none"] : ["rebuilt", "warm"]) {
          const resumed = openPathOnly(path);
          assert.equal(resumed.index, state, "read through the index");
          assert.deepEqual(
            resumed.path.map((p) => p.id),
            branch.map((e) => e.id),
          );
          assert.deepEqual(resumed.context, projectContext(branch));
          assert.ok(findingAt(resumed.issues, shape), JSON.stringify(resumed.issues));
        }
        // Both records of a glued line point at the line; the reader splits it again.
        const index = readThroughIndex(path, (reader) => reader.index);
        const ids = index ? index.ids.toArray() : [];
        assert.deepEqual(
          ids,
          indexed(shape).map((e) => e.id),
        );
        const onGluedLine = ids.filter((_, i) => index?.lines[i] === shape.glued.line);
        // (On line 1, one of the records is the header.)
        const entriesOnLine = shape.glued.records - (shape.glued.line === 1 ? 1 : 0);
        assert.equal(onGluedLine.length, shape.unterminated ? 0 : entriesOnLine);
        for (let i = 0; i < ids.length; i++)
          if (index?.lines[i] === shape.glued.line) assert.equal(index.offsets[i], shape.glued.offset);
      });

      test("the store's import keeps every record, or refuses the damaged file whole", async () => {
        const text = shape.bytes.toString("utf8");
        for (const store of [new MemoryStore(), new JsonlStore({ root: mkdtempSync(join(dir, "store")) })]) {
          await store.init();
          if (shape.damaged) {
            // An import is all or nothing: the garbage refuses it, and says where it is.
            await assert.rejects(store.importJsonl("alice", text), (error: unknown) => {
              assert.ok(isSessionTreeError(error, "invalid_entry"));
              const issues = (error.details as { issues: SessionIssue[] }).issues;
              assert.deepEqual(
                issues.map((i) => [i.code, i.line, i.offset]),
                [["invalid_json", shape.glued.line, shape.glued.offset]],
              );
              return true;
            });
          } else {
            const summary = await store.importJsonl("alice", text);
            const page = await store.readEntries("alice", summary.id);
            assert.deepEqual(page.entries, shape.entries);
            assert.equal(summary.leafId, shape.entries.at(-1)?.id);
            const exported = await store.exportJsonl("alice", summary.id);
            assert.equal(
              exported.split("\n").length,
              shape.entries.length + 2,
              "exported one line per record",
            );
          }
          await store.close();
        }
      });
    });
  }
});

describe("glued lines met later", () => {
  test("lines another writer glued are read on catch-up: both records join the tree", () => {
    const m = entryMaker();
    const header = m.header();
    const a = m.user("a", null);
    const path = place(Buffer.from(encodeLine(header) + encodeLine(a)));
    const file = SessionFile.open(path);
    const b = m.assistant("b", "a");
    const c = m.user("c", "b");
    appendFileSync(path, `${JSON.stringify(b)}${JSON.stringify(c)}\n`);
    const [ours] = file.write((tree) => [
      tree.append({ type: "message", message: { role: "user", content: "d", timestamp: 1 } }),
    ]);
    assert.deepEqual(
      file.tree.getStoredEntries().map((e) => e.id),
      ["a", "b", "c", ours?.id],
    );
    assert.ok(file.getIssues().some((i) => i.code === "glued_records" && i.line === 3));
    file.close();
  });

  test("a large file (indexed open) with a glued line: the manager still sees every record", () => {
    const m = entryMaker();
    const header = m.header();
    const entries: SessionEntry[] = [];
    let parent: string | null = null;
    for (let i = 0; i < 300; i++) {
      const entry = m.user(`p${i}`, parent, `${i} ${"padding ".repeat(600)}`);
      entries.push(entry);
      parent = entry.id;
    }
    const a = m.assistant("ga", parent);
    const c = m.entry("compaction", "gc", "ga", {
      summary: "s".repeat(7000),
      firstKeptEntryId: "ga",
      tokensBefore: 9,
    });
    const text =
      encodeLine(header) + entries.map((e) => encodeLine(e)).join("") + JSON.stringify(a) + encodeLine(c);
    const path = place(Buffer.from(text));
    assert.ok(statSync(path).size > 1 << 20, "big enough to be opened through the index");
    const manager = SessionManager.open(path);
    assert.equal(manager.getLeafId(), "gc");
    assert.deepEqual(
      manager
        .getEntries()
        .slice(-2)
        .map((e) => e.id),
      ["ga", "gc"],
    );
    assert.equal(
      manager.buildSessionContext().messages.length,
      2,
      "the compaction summary, then the kept reply",
    );
    const resumed = openPathOnly(path);
    assert.notEqual(resumed.index, "none");
    assert.deepEqual(
      resumed.entries.map((e) => e.id),
      ["ga", "gc"],
    );
  });
});
