import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import { SessionManager } from "../../src/session/session-manager.js";
import { piFields } from "./support/disk-checks.js";
import { assertSameSession, pairByPosition, SAME_IDS } from "./support/pair.js";
import { assistant, contextTexts, runOnBoth, user } from "./support/scenario.js";

const root = mkdtempSync(join(tmpdir(), "st-behaviour-"));
after(() => rmSync(root, { recursive: true, force: true }));
let dirs = 0;
const freshDir = () => join(root, `d${++dirs}`);

/** Writes the same text to two files, one per reader (pi rewrites files it migrates). */
function twoCopies(lines: unknown[]): { ours: string; pi: string } {
  const dir = freshDir();
  mkdirSync(dir, { recursive: true });
  const text = `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`;
  writeFileSync(join(dir, "ours.jsonl"), text);
  writeFileSync(join(dir, "pi.jsonl"), text);
  writeFileSync(join(dir, "pi.jsonl.orig"), text);
  return { ours: join(dir, "ours.jsonl"), pi: join(dir, "pi.jsonl") };
}

const T = "2026-01-01T00:00:00.000Z";
const header = (extra: Record<string, unknown> = {}) => ({
  type: "session",
  id: "s1",
  timestamp: T,
  cwd: "/p",
  ...extra,
});
const msg = (id: string | undefined, parentId: string | null | undefined, message: object) => ({
  type: "message",
  ...(id === undefined ? {} : { id, parentId }),
  timestamp: T,
  message,
});

describe("pi's session behaviours: files", () => {
  test("orphans: a dangling parent is reported and shown as a root, as pi shows it", () => {
    const files = twoCopies([
      header({ version: 3 }),
      msg("e1", null, user("root")),
      msg("e2", "e1", assistant("child")),
      msg("e3", "gone", user("orphan")),
      msg("e4", "e3", assistant("orphan's child")),
    ]);
    const ours = SessionManager.open(files.ours);
    const pi = PiSessionManager.open(files.pi);
    assertSameSession(ours, pi, SAME_IDS, "orphans", { deep: true });
    assert.deepEqual(
      ours.getTree().map((n) => n.entry.id),
      ["e1", "e3"],
    );
    assert.deepEqual(
      ours.getIssues().map((i) => [i.code, i.entryId]),
      [["dangling_parent", "e3"]],
    );
    assert.deepEqual(contextTexts(ours), ["orphan", "orphan's child"]);
    ours.close();
  });

  test("v1: entries chained in file order, firstKeptEntryIndex becomes firstKeptEntryId", () => {
    const files = twoCopies([
      header(),
      msg(undefined, undefined, user("u1")),
      msg(undefined, undefined, assistant("a1")),
      msg(undefined, undefined, user("u2")),
      { type: "compaction", timestamp: T, summary: "S", firstKeptEntryIndex: 2, tokensBefore: 9 },
      msg(undefined, undefined, assistant("a2")),
    ]);
    const ours = SessionManager.open(files.ours);
    const pi = PiSessionManager.open(files.pi);
    assertSameSession(ours, pi, pairByPosition(ours, pi), "v1", { deep: true });
    assert.deepEqual(contextTexts(ours), ["compactionSummary:S", "a1", "u2", "a2"]);
    const entries = ours.getEntries();
    const compaction = entries[3];
    assert.equal(compaction?.type === "compaction" && compaction.firstKeptEntryId, entries[1]?.id);
    assert.equal(
      readFileSync(files.ours, "utf8"),
      readFileSync(`${files.pi}.orig`, "utf8"),
      "reading never rewrites",
    );
    ours.close();
  });

  test("v2: message role hookMessage becomes custom", () => {
    const hook = {
      role: "hookMessage",
      customType: "hook",
      content: "from a hook",
      display: true,
      timestamp: 5,
    };
    const files = twoCopies([header({ version: 2 }), msg("h1", null, hook), msg("h2", "h1", user("next"))]);
    const ours = SessionManager.open(files.ours);
    const pi = PiSessionManager.open(files.pi);
    assertSameSession(ours, pi, SAME_IDS, "v2", { deep: true });
    assert.deepEqual(ours.buildSessionContext().messages[0], { ...hook, role: "custom" });
    ours.close();
  });

  test("forkFrom copies the whole history into a new session of another cwd, rewind included", () => {
    const source = SessionManager.create("/src", freshDir());
    const u1 = source.appendMessage(user("u1"));
    source.appendMessage(assistant("a1"));
    source.appendLabelChange(u1, "start");
    source.branch(u1);
    const sourceFile = source.getSessionFile() as string;

    const forked = SessionManager.forkFrom(sourceFile, "/target", freshDir());
    assert.equal(forked.getCwd(), "/target");
    assert.equal(forked.getHeader()?.cwd, "/target");
    assert.equal(forked.getHeader()?.parentSession, sourceFile);
    assert.notEqual(forked.getSessionId(), source.getSessionId());
    assertSameSession(forked, source, SAME_IDS, "fork", { deep: true });
    assert.equal(forked.getLeafId(), u1);

    const piForked = PiSessionManager.forkFrom(sourceFile, "/target", freshDir());
    assert.deepEqual(piForked.buildSessionContext(), piFields(forked.buildSessionContext()));
    assert.deepEqual(
      PiSessionManager.open(forked.getSessionFile() as string).buildSessionContext(),
      piForked.buildSessionContext(),
    );
    forked.close();
    source.close();
  });

  test("createBranchedSession in memory: the path only, labels carried in pi's order", () => {
    let target = "";
    const { ours } = runOnBoth((sm) => {
      const u1 = sm.appendMessage(user("u1"));
      const a1 = sm.appendMessage(assistant("a1"));
      const u2 = sm.appendMessage(user("u2"));
      target = sm.appendMessage(assistant("a2"));
      // Labels set from another branch, so the path itself holds no label entries.
      sm.branch(u1);
      sm.appendMessage(assistant("other branch"));
      sm.appendLabelChange(a1, "x");
      sm.appendLabelChange(u1, "y");
      sm.appendLabelChange(u2, "z");
      sm.appendLabelChange(a1, "");
      sm.appendLabelChange(a1, "x again");
      sm.createBranchedSession(target);
    }, "branched in memory");
    assert.deepEqual(contextTexts(ours), ["u1", "a1", "u2", "a2"]);
    const labels = ours.getEntries().filter((e) => e.type === "label");
    assert.deepEqual(
      labels.map((e) => e.type === "label" && e.label),
      ["y", "z", "x again"],
    );
    assert.equal(ours.getSessionFile(), undefined);
  });

  test("createBranchedSession on disk: written at once, parentSession set, labels and their times carried", () => {
    const ours = SessionManager.create("/p", freshDir());
    const pi = PiSessionManager.create("/p", freshDir());
    const messages = [user("u1"), assistant("a1"), user("dropped")] as const;
    const targets: string[] = [];
    for (const sm of [pi as unknown as SessionManager, ours]) {
      const u1 = sm.appendMessage(messages[0]);
      const a1 = sm.appendMessage(messages[1]);
      sm.appendMessage(messages[2]);
      sm.appendLabelChange(a1, "x");
      sm.appendLabelChange(u1, "y");
      targets.push(a1);
    }
    const labelTime = ours.getTree()[0]?.children[0]?.labelTimestamp;
    assert.ok(labelTime);
    const before = ours.getSessionFile();
    const newFile = ours.createBranchedSession(targets[1] as string) as string;
    pi.createBranchedSession(targets[0] as string);
    assertSameSession(ours, pi, pairByPosition(ours, pi), "branched on disk", { deep: true });
    assert.equal(ours.getHeader()?.parentSession, before);
    assert.deepEqual(contextTexts(ours), ["u1", "a1"]);
    const reread = SessionManager.open(newFile);
    assertSameSession(reread, ours, SAME_IDS, "reread", { deep: true });
    assert.equal(reread.getTree()[0]?.children[0]?.labelTimestamp, labelTime);
    const piReading = PiSessionManager.open(newFile);
    assertSameSession(reread, piReading, SAME_IDS, "pi reading", { deep: true });
    reread.close();
    ours.close();
  });

  test("createBranchedSession keeps the context when label entries lie on the path", {
    todo: "pi 0.73.1 and ours drop the path's label entries without re-linking their children",
  }, () => {
    const sm = SessionManager.inMemory("/p");
    const u1 = sm.appendMessage(user("u1"));
    sm.appendLabelChange(u1, "x");
    const u2 = sm.appendMessage(user("u2"));
    sm.createBranchedSession(u2);
    assert.deepEqual(contextTexts(sm), ["u1", "u2"]);
  });

  test("unknown entry types and fields survive a read/write round trip byte-for-byte per line", () => {
    const lines = [
      { type: "session", version: 3, id: "s9", timestamp: T, cwd: "/p", futureHeaderField: { a: [1, 2] } },
      {
        type: "message",
        id: "m1",
        parentId: null,
        timestamp: T,
        message: { role: "user", content: "hi", meta: { x: 1 } },
        extra: true,
      },
      { type: "future_thing", id: "f1", parentId: "m1", timestamp: T, payload: { nested: ["é", "\u2028"] } },
      {
        id: "m2",
        type: "message",
        parentId: "f1",
        timestamp: T,
        message: { role: "bashExecution", command: "ls", output: "" },
      },
    ];
    const dir = freshDir();
    mkdirSync(dir);
    const source = join(dir, "source.jsonl");
    const text = `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`;
    writeFileSync(source, text);
    const opened = SessionManager.open(source);
    assert.deepEqual(opened.getIssues(), []);
    assert.deepEqual(
      opened.getEntries().map((e) => e.id),
      ["m1", "f1", "m2"],
    );
    assert.deepEqual(opened.getHeader(), lines[0]);
    const forked = SessionManager.forkFrom(source, "/p", freshDir());
    const forkedLines = readFileSync(forked.getSessionFile() as string, "utf8").split("\n");
    assert.deepEqual(forkedLines.slice(1), text.split("\n").slice(1), "entry lines identical");
    opened.appendMessage(user("appended"));
    assert.ok(readFileSync(source, "utf8").startsWith(text), "appending keeps every old byte");
    assert.equal(PiSessionManager.open(source).getEntries().length, 4);
    opened.close();
    forked.close();
  });
});
