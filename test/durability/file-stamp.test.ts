import assert from "node:assert/strict";
import {
  appendFileSync,
  closeSync,
  fstatSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import {
  checkStamp,
  type FileStamp,
  stampBeforeAppend,
  statMatches,
  takeStamp,
} from "../../src/file/file-stamp.js";
import { writeAtomic } from "../../src/file/write-atomic.js";
import { tempDir } from "./support.js";

const { dir, cleanup } = tempDir("stamp");
after(cleanup);
let n = 0;

const FIXED_TIME = new Date("2026-01-01T00:00:00.000Z");
const LINES = `${Array.from({ length: 50 }, (_, i) => `{"line":${i}}`).join("\n")}\n`;

/** A file of whole lines, stamped over all of it with 64-byte head and tail regions. */
function stamped(): { path: string; stamp: FileStamp } {
  const path = join(dir, `f${n++}.jsonl`);
  writeFileSync(path, LINES);
  // A whole millisecond, so that putting it back after an edit gives the very same mtime.
  utimesSync(path, FIXED_TIME, FIXED_TIME);
  const stamp = withFd(path, (fd) =>
    takeStamp(fd, fstatSync(fd), { covered: Buffer.byteLength(LINES), head: 64, tail: 64 }),
  );
  return { path, stamp };
}

function withFd<T>(path: string, fn: (fd: number) => T): T {
  const fd = openSync(path, "r");
  try {
    return fn(fd);
  } finally {
    closeSync(fd);
  }
}

function check(path: string, stamp: FileStamp, verifyUnchanged = false) {
  return withFd(path, (fd) => checkStamp(stamp, fd, fstatSync(fd), { verifyUnchanged }));
}

/** Rewrites the file's bytes in place, keeping its size and putting its mtime back. */
function editKeepingStat(path: string, edit: (text: string) => string): void {
  const text = readFileSync(path, "utf8");
  const edited = edit(text);
  assert.equal(Buffer.byteLength(edited), Buffer.byteLength(text));
  writeFileSync(path, edited);
  utimesSync(path, FIXED_TIME, FIXED_TIME);
}

describe("file stamp: unchanged, grew or replaced", () => {
  test("an untouched file is unchanged, with and without reading it", () => {
    const { path, stamp } = stamped();
    assert.equal(check(path, stamp), "unchanged");
    assert.equal(check(path, stamp, true), "unchanged");
    assert.equal(statMatches(stamp, statSync(path)), true);
  });

  test("an append is growth; growth over edited covered bytes is not", () => {
    const { path, stamp } = stamped();
    appendFileSync(path, '{"line":50}\n');
    assert.equal(check(path, stamp), "grew");
    const other = stamped();
    writeFileSync(other.path, `${LINES.replace('{"line":49}', '{"line":99}')}{"line":50}\n`);
    assert.equal(check(other.path, other.stamp), "replaced", "the tail region changed");
  });

  test("an edit that keeps size and mtime passes a stat, not a verified check", () => {
    const { path, stamp } = stamped();
    editKeepingStat(path, (text) => text.replace('{"line":1}', '{"line":7}'));
    assert.equal(check(path, stamp), "unchanged", "a stat cannot tell");
    assert.equal(check(path, stamp, true), "replaced");
  });

  test("shrunk, touched or replaced files are replaced", () => {
    const shrunk = stamped();
    truncateSync(shrunk.path, 10);
    assert.equal(check(shrunk.path, shrunk.stamp), "replaced");
    const touched = stamped();
    utimesSync(touched.path, new Date(), new Date());
    assert.equal(check(touched.path, touched.stamp), "replaced");
    const swapped = stamped();
    const copy = join(dir, "copy.tmp");
    writeFileSync(copy, `${LINES}{"line":50}\n`);
    renameSync(copy, swapped.path);
    assert.equal(check(swapped.path, swapped.stamp), "replaced", "a new inode, though it looks grown");
  });

  test("a stamp taken before an append knows the inode and the size to come", () => {
    const { path } = stamped();
    const ahead = stampBeforeAppend(statSync(path), 12);
    assert.equal(statMatches(ahead, statSync(path)), false);
    appendFileSync(path, '{"line":50}\n');
    assert.equal(statMatches(ahead, statSync(path)), true);
  });
});

describe("writeAtomic", () => {
  test("replaces the content, creates the folder on request, and leaves no temp file", () => {
    const folder = join(dir, "atomic", "deeper");
    const path = join(folder, "data.json");
    writeAtomic(path, "first", { createDir: true });
    writeAtomic(path, Buffer.from("second"), { fsync: false, mode: 0o600 });
    assert.equal(readFileSync(path, "utf8"), "second");
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.deepEqual(readdirSync(folder), ["data.json"]);
  });

  test("a failed write leaves the old content and no temp file", () => {
    const path = join(dir, "kept.json");
    writeAtomic(path, "old");
    assert.throws(() => writeAtomic(join(dir, "missing-folder", "x.json"), "new"), { code: "ENOENT" });
    // A rename onto a folder fails after the temp file was written: the temp file must go.
    const folderTarget = join(dir, "a-folder");
    writeAtomic(join(folderTarget, "inside"), "x", { createDir: true });
    assert.throws(() => writeAtomic(folderTarget, "new"));
    assert.deepEqual(
      readdirSync(dir).filter((name) => name.includes(".tmp-")),
      [],
    );
    assert.equal(readFileSync(path, "utf8"), "old");
  });
});
