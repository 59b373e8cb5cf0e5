import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { isSessionTreeError } from "../../src/core/errors.js";
import { encodeLine, encodeLines } from "../../src/format/jsonl/encode.js";
import { SessionManager } from "../../src/session/session-manager.js";
import { entryMaker } from "../support/messages.js";
import { tempDir } from "./support.js";

const { dir, cleanup } = tempDir("header");
after(cleanup);

const CWD = "/tmp/project";
const make = entryMaker();
const HEADER = encodeLine(make.header({ id: "0195f0a0-0000-7000-8000-00000000abcd", cwd: CWD }));
const BODY = encodeLines([make.user("e1", null, "first ✓"), make.assistant("e2", "e1", "reply")]);

/** Files that hold something and have no usable header, or nothing but a header. */
const CASES: Record<string, string | Buffer> = {
  "header only": HEADER,
  "header only, no newline": HEADER.trimEnd(),
  "header and a blank line": `${HEADER}\n`,
  "header with a flipped byte": HEADER.replace('"type"', '"typ\u0001"') + BODY,
  "header not JSON": `{"type":"session","id":${BODY}`,
  "header is {}": `{}\n${BODY}`,
  "header is an empty line": `\n${BODY}`,
  "header missing (line 1 is an entry)": BODY,
  "header of another type": HEADER.replace('"type":"session"', '"type":"sessions"') + BODY,
  "header without an id": HEADER.replace(/"id":"[^"]*",/, "") + BODY,
  "header is an array": `[1,2,3]\n${BODY}`,
  "only whitespace": "  \n\t\n",
  "binary garbage": Buffer.from([0xff, 0xfe, 0x00, 0x01, 0x0a, 0x80, 0x81]),
  "torn header only": HEADER.slice(0, 25),
  "header in invalid UTF-8": Buffer.concat([
    Buffer.from(HEADER.slice(0, 30)),
    Buffer.from([0xc3, 0x28]),
    Buffer.from(HEADER.slice(30) + BODY),
  ]),
};

let n = 0;
function place(content: string | Buffer): { folder: string; path: string; before: Buffer } {
  const folder = join(dir, `case-${n++}`);
  mkdirSync(folder);
  // pi's file name shape, so continueRecent considers it.
  const path = join(folder, "2026-01-01T00-00-00-000Z_0195f0a0-0000-7000-8000-00000000abcd.jsonl");
  writeFileSync(path, content);
  return { folder, path, before: readFileSync(path) };
}

type Opener = (path: string, folder: string) => SessionManager;
const OPENERS: Record<string, Opener> = {
  open: (path, folder) => SessionManager.open(path, folder, CWD),
  setSessionFile: (path, folder) => {
    const manager = SessionManager.create(CWD, folder);
    manager.setSessionFile(path);
    return manager;
  },
  continueRecent: (_path, folder) => SessionManager.continueRecent(CWD, folder),
};

/** Opens and appends; then the old bytes must be a prefix of the new ones, or the call failed typed with no change. */
function tryToLoseData(name: string, content: string | Buffer, opener: string): void {
  const { folder, path, before } = place(content);
  const label = `${name} via ${opener}`;
  let manager: SessionManager | undefined;
  try {
    manager = (OPENERS[opener] as Opener)(path, folder);
    manager.appendMessage({ role: "user", content: "hello", timestamp: 1 });
    manager.appendMessage({ role: "user", content: "again", timestamp: 2 });
  } catch (error) {
    assert.ok(isSessionTreeError(error), `${label}: ${String(error)} is not a typed error`);
  } finally {
    manager?.close();
  }
  const afterBytes = readFileSync(path);
  assert.ok(afterBytes.length >= before.length, `${label}: the file shrank`);
  assert.deepEqual(
    afterBytes.subarray(0, before.length),
    before,
    `${label}: the old bytes are no longer a prefix`,
  );
  // Nothing else in the folder was rewritten either (a new session file is fine).
  for (const other of readdirSync(folder)) assert.ok(existsSync(join(folder, other)));
}

for (const opener of Object.keys(OPENERS)) {
  test(`a header-only or damaged-header file is never overwritten with less (${opener})`, () => {
    for (const [name, content] of Object.entries(CASES)) tryToLoseData(name, content, opener);
  });
}

test("a header-only file gets its entries appended after the header, and reopens with them", () => {
  const { folder, path } = place(HEADER);
  const manager = SessionManager.open(path, folder, CWD);
  const id = manager.appendMessage({ role: "user", content: "hello", timestamp: 1 });
  manager.close();
  const text = readFileSync(path, "utf8");
  assert.ok(text.startsWith(HEADER), "header kept as it was");
  const reopened = SessionManager.open(path, folder, CWD);
  assert.equal(reopened.getLeafId(), id);
  assert.deepEqual(reopened.getIssues(), []);
  reopened.close();
});

test("an old-format file is rewritten only atomically, with the original kept byte-for-byte", () => {
  const v1 = `${[
    JSON.stringify({
      type: "session",
      id: "0195f0a0-0000-7000-8000-00000000beef",
      timestamp: "2025-01-01T00:00:00.000Z",
      cwd: CWD,
    }),
    JSON.stringify({
      type: "message",
      timestamp: "2025-01-01T00:00:01.000Z",
      message: { role: "user", content: "v1 hi", timestamp: 1 },
    }),
    JSON.stringify({
      type: "message",
      timestamp: "2025-01-01T00:00:02.000Z",
      message: { role: "user", content: "v1 again", timestamp: 2 },
    }),
  ].join("\n")}\n`;
  const { folder, path, before } = place(v1);
  const manager = SessionManager.open(path, folder, CWD);
  manager.appendMessage({ role: "user", content: "v3 now", timestamp: 3 });
  manager.close();
  const backups = readdirSync(folder).filter((name) => name.includes(".v1.bak"));
  assert.equal(backups.length, 1, "one backup of the v1 file");
  assert.deepEqual(readFileSync(join(folder, backups[0] as string)), before, "backup is byte-identical");
  const reopened = SessionManager.open(path, folder, CWD);
  const texts = reopened.getEntries().map((e) => (e.type === "message" ? e.message.content : null));
  assert.deepEqual(texts, ["v1 hi", "v1 again", "v3 now"]);
  reopened.close();
});
