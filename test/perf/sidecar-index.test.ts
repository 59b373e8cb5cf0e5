import assert from "node:assert/strict";
import {
  appendFileSync,
  copyFileSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { ENTRY_TYPES } from "../../src/core/entry.js";
import { indexPathFor, loadCachedIndex as loadIndex } from "../../src/file/sidecar-index.js";
import { KIND, kindName } from "../../src/file/sidecar-index-kind.js";
import { openPathOnly } from "../../src/session/context-resume.js";
import { SessionManager } from "../../src/session/session-manager.js";
import { messageMaker } from "../support/messages.js";

/** The real pi sessions (v1) from pi's own test fixtures, beside the work tree. */
const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), "../../../shared/fixtures/pi");
const root = mkdtempSync(join(tmpdir(), "st-sidecar-"));
after(() => rmSync(root, { recursive: true, force: true }));
let count = 0;

const { user, assistant } = messageMaker();

/**
 * A session with everything the context projection looks at: model and thinking changes, custom
 * (extension) entries, an abandoned branch, two compactions, a label and a name.
 */
function writeSession(): string {
  const dir = join(root, `d${++count}`);
  const sm = SessionManager.create("/work/project", dir);
  sm.appendModelChange("openai", "gpt-5");
  sm.appendThinkingLevelChange("high");
  sm.appendCustomEntry("todo", { items: ["a"] });
  let keep = "";
  for (let i = 0; i < 30; i++) {
    const id = sm.appendMessage(user(`question ${i}`));
    if (i === 12) keep = id;
    sm.appendMessage(assistant(`answer ${i}`, { model: i < 20 ? "claude-opus-4-1" : "claude-sonnet-4-5" }));
    if (i === 8) {
      const back = sm.getLeafId() as string;
      for (let j = 0; j < 5; j++) sm.appendMessage(user(`abandoned ${j}`));
      sm.branch(back);
    }
    if (i === 15) sm.appendCompaction("summary one", keep, 1000);
    if (i === 18) sm.appendCustomEntry("todo", { items: ["a", "b"] });
  }
  sm.appendCompaction("summary two", keep, 2000);
  sm.appendMessage(user("after compaction"));
  sm.appendLabelChange(keep, "kept here");
  sm.appendSessionInfo("a name");
  const path = sm.getSessionFile() as string;
  sm.close();
  return path;
}

/** What a full read says: the reference the index must reproduce. */
function fullRead(path: string) {
  const sm = SessionManager.open(path);
  const result = {
    leafId: sm.getLeafId(),
    pathIds: sm.getBranch().map((e) => e.id),
    context: sm.buildSessionContext(),
  };
  sm.close();
  return result;
}

function assertSameAsFullRead(path: string, expectIndex?: string) {
  const resumed = openPathOnly(path);
  const full = fullRead(path);
  if (expectIndex) assert.equal(resumed.index, expectIndex);
  assert.equal(resumed.leafId, full.leafId);
  assert.deepEqual(
    resumed.path.map((p) => p.id),
    full.pathIds,
  );
  assert.deepEqual(resumed.context, full.context);
  return resumed;
}

describe("sidecar index: resume reads only the path, and gives what a full read gives", () => {
  test("cold open builds the index; warm open uses it and reads fewer entries than the path", () => {
    const path = writeSession();
    const cold = assertSameAsFullRead(path, "rebuilt");
    assert.ok(loadIndex(path), "the index was written");
    const warm = assertSameAsFullRead(path, "warm");
    assert.ok(
      warm.entries.length < warm.path.length,
      "entries before the compaction's kept range are not read",
    );
    assert.equal(warm.context.thinkingLevel, "high");
    assert.deepEqual(warm.context.extensionState, { todo: { items: ["a", "b"] } });
    assert.equal(cold.context.compaction?.keptFound, true);
  });

  test("lines appended by another writer are indexed from where the index stopped", () => {
    const path = writeSession();
    openPathOnly(path);
    const other = SessionManager.open(path);
    other.appendMessage(user("from another process"));
    other.close();
    const resumed = assertSameAsFullRead(path, "caught-up");
    const last = resumed.context.messages.at(-1) as { content: unknown };
    assert.equal(last.content, "from another process");
    assertSameAsFullRead(path, "warm");
  });

  test("a rewind persisted as a leaf marker is the leaf on resume", () => {
    const path = writeSession();
    openPathOnly(path);
    const sm = SessionManager.open(path);
    const target = sm.getBranch().at(-10)?.id as string;
    sm.branch(target);
    sm.close();
    const resumed = assertSameAsFullRead(path, "caught-up");
    assert.equal(resumed.leafId, target);
  });

  test("a file edited behind the index's back (lengths change) is re-indexed", () => {
    const path = writeSession();
    openPathOnly(path);
    const text = readFileSync(path, "utf8").replace("answer 25", "answer twenty-five, rewritten");
    writeFileSync(path, text);
    const resumed = assertSameAsFullRead(path, "rebuilt");
    assert.ok(JSON.stringify(resumed.context.messages).includes("twenty-five"));
  });

  test("an edit that keeps size and mtime is caught by checking each line read", () => {
    const path = writeSession();
    const mtime = new Date("2026-01-01T00:00:00.000Z");
    utimesSync(path, mtime, mtime);
    const first = openPathOnly(path);
    // Change the parent of a path entry to another id of the same length: same size, same mtime.
    const victim = first.path.at(-3);
    const other = first.path[1];
    assert.ok(victim && other && victim.parentId);
    const text = readFileSync(path, "utf8").replace(
      `"id":"${victim.id}","parentId":"${victim.parentId}"`,
      `"id":"${victim.id}","parentId":"${other.id}"`,
    );
    writeFileSync(path, text);
    utimesSync(path, mtime, mtime);
    assert.equal(statSync(path).mtimeMs, mtime.getTime());
    const resumed = assertSameAsFullRead(path, "rebuilt");
    assert.ok(resumed.path.length < first.path.length, "the new parent shortens the path");
  });

  test("a truncated file is re-indexed", () => {
    const path = writeSession();
    openPathOnly(path);
    const lines = readFileSync(path, "utf8").split("\n");
    truncateSync(path, Buffer.byteLength(`${lines.slice(0, lines.length - 6).join("\n")}\n`));
    assertSameAsFullRead(path, "rebuilt");
  });

  test("a file replaced by another (new inode) is re-indexed", () => {
    const path = writeSession();
    const otherPath = writeSession();
    openPathOnly(path);
    const index = readFileSync(indexPathFor(path));
    renameSync(otherPath, path);
    writeFileSync(indexPathFor(path), index);
    assertSameAsFullRead(path, "rebuilt");
  });

  test("a damaged or truncated index file is rebuilt", () => {
    const path = writeSession();
    openPathOnly(path);
    const index = readFileSync(indexPathFor(path));
    writeFileSync(indexPathFor(path), index.subarray(0, index.length - 20));
    assertSameAsFullRead(path, "rebuilt");
    writeFileSync(indexPathFor(path), "not an index");
    assertSameAsFullRead(path, "rebuilt");
  });

  test("a torn tail is reported and left out, as by a full read", () => {
    const path = writeSession();
    openPathOnly(path);
    appendFileSync(path, '{"type":"message","id":"torn0001","parentId":null,"timest');
    const resumed = assertSameAsFullRead(path);
    assert.ok(resumed.issues.some((issue) => issue.code === "torn_tail"));
  });

  test("a damaged line on the path falls back to the full read and reports it", () => {
    const path = writeSession();
    const first = openPathOnly(path);
    const victim = first.path.at(-4);
    assert.ok(victim);
    const text = readFileSync(path, "utf8");
    const start = text.indexOf(`"id":"${victim.id}"`);
    const end = text.indexOf("\n", start);
    // Cut the line's JSON short but keep its prefix (the indexer's fast scan still reads it).
    writeFileSync(path, `${text.slice(0, end - 15)}${"x".repeat(15)}${text.slice(end)}`);
    const resumed = assertSameAsFullRead(path);
    assert.equal(resumed.index, "none");
    assert.ok(resumed.issues.some((issue) => issue.code === "invalid_json"));
  });

  test("an older-format file (pi v1) is read whole, with the same result", () => {
    const path = join(root, "v1.jsonl");
    copyFileSync(join(FIXTURES, "large-session.jsonl"), path);
    const resumed = openPathOnly(path);
    assert.equal(resumed.index, "none");
    const full = fullRead(path);
    // v1 entries get fresh ids on every read (pi does the same), so compare what has no ids.
    assert.equal(resumed.path.length, full.pathIds.length);
    assert.deepEqual(resumed.context.messages, full.context.messages);
    assert.equal(resumed.context.thinkingLevel, full.context.thinkingLevel);
    assert.deepEqual(resumed.context.model, full.context.model);
  });

  test("entry types keep their registry codes as kinds, apart from the index's own", () => {
    const own = new Set<number>(Object.values(KIND));
    for (const [type, { code }] of Object.entries(ENTRY_TYPES)) {
      if (type !== "message") assert.ok(!own.has(code), `${type}'s code ${code} is one of the index's own`);
      assert.ok(code < 256, "kinds are stored as bytes");
      assert.equal(kindName(code), type);
    }
    assert.deepEqual(
      [KIND.other, KIND.message, KIND.assistant, KIND.leafMarker, KIND.messageUnknownRole],
      [0, 1, 2, 11, 12],
    );
  });
});
