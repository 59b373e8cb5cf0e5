import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import { SessionManager } from "../../src/session/session-manager.js";
import { tempFolders } from "../support/temp-folders.js";
import { assertSameSession, SAME_IDS } from "./support/pair.js";
import { assistant, user } from "./support/scenario.js";
import { twoCopies } from "./support/two-copies.js";

// Shapes pi reads that other writers, and pi itself, leave in session files: ours must give the
// same entries, leaf and context.

const { fresh: freshDir } = tempFolders("st-wild-shapes");

const at = (second: number) => `2026-01-01T00:00:${String(second).padStart(2, "0")}.000Z`;
const HEADER = { type: "session", version: 3, id: "s1", timestamp: at(0), cwd: "/p" };

function lines(records: unknown[]): string {
  return `${records.map((r) => JSON.stringify(r)).join("\n")}\n`;
}

/** Both readers on copies of `text`: the same session, then the same again after one append each. */
function assertReadAlike(text: string, where: string, deep = true): SessionManager {
  const files = twoCopies(freshDir(), text);
  const ours = SessionManager.open(files.ours);
  const pi = PiSessionManager.open(files.pi);
  assertSameSession(ours, pi, SAME_IDS, where, { deep });
  return ours;
}

const ids = (entries: Array<{ id: string }>) => entries.map((e) => e.id);

/**
 * Both readers on copies of `records`, which pi keeps whole: the same entries, leaf and branch,
 * which is `branch`. What else the two make of the entries is each test's to compare.
 */
function openAlike(records: unknown[], branch: string[]) {
  const files = twoCopies(freshDir(), lines(records));
  const ours = SessionManager.open(files.ours);
  const pi = PiSessionManager.open(files.pi);
  assert.deepEqual(ids(ours.getEntries()), ids(pi.getEntries()));
  assert.deepEqual(ids(ours.getBranch()), branch);
  assert.deepEqual(ids(ours.getBranch()), ids(pi.getBranch()));
  assert.equal(ours.getLeafId(), pi.getLeafId());
  return { files, ours, pi };
}

const compactionWithout = (kept: Record<string, unknown>) => [
  HEADER,
  { type: "message", id: "u1", parentId: null, timestamp: at(1), message: user("q1") },
  { type: "message", id: "a1", parentId: "u1", timestamp: at(2), message: assistant("a1") },
  {
    type: "compaction",
    id: "c1",
    parentId: "a1",
    timestamp: at(3),
    summary: "sum",
    tokensBefore: 10,
    ...kept,
  },
  { type: "message", id: "u2", parentId: "c1", timestamp: at(4), message: user("q2") },
];

describe("a compaction that names no first kept entry", () => {
  for (const [name, kept] of [
    ["left out", {}],
    ["null", { firstKeptEntryId: null }],
  ] as const) {
    test(`(${name}) keeps the summary and what follows, and the history before it`, () => {
      const ours = assertReadAlike(lines(compactionWithout(kept)), name);
      assert.deepEqual(
        ours.getBranch().map((e) => e.id),
        ["u1", "a1", "c1", "u2"],
      );
      const context = ours.buildSessionContext();
      assert.deepEqual(
        context.messages.map((m) => m.role),
        ["compactionSummary", "user"],
      );
      assert.equal(context.model?.modelId, assistant("x").model);
      assert.deepEqual(
        ours.getIssues().map((issue) => issue.code),
        [],
      );
      assert.match(context.warnings[0]?.message ?? "", /names no first kept entry/);
      ours.close();
    });
  }

  test("as pi writes it when it migrates a v1 file whose kept index is out of range", () => {
    const v1 = [
      { type: "session", id: "s1", timestamp: at(0), cwd: "/p" },
      { type: "message", timestamp: at(1), message: user("q1") },
      { type: "message", timestamp: at(2), message: assistant("a1") },
      { type: "compaction", timestamp: at(3), summary: "sum", firstKeptEntryIndex: 99, tokensBefore: 10 },
      { type: "message", timestamp: at(4), message: user("q2") },
    ];
    const { pi: path } = twoCopies(freshDir(), lines(v1));
    // pi migrates the file in place: its compaction line then has no firstKeptEntryId.
    PiSessionManager.open(path).appendMessage(assistant("a2") as never);
    const written = readFileSync(path, "utf8");
    assert.doesNotMatch(written, /firstKeptEntryId/);
    const ours = assertReadAlike(written, "pi's migration");
    assert.equal(ours.getBranch().length, 5);
    ours.close();
  });
});

describe("an entry with no parentId at all", () => {
  test("is a root, as pi reads it", () => {
    const records = [
      HEADER,
      { type: "message", id: "u1", timestamp: at(1), message: user("q1") },
      { type: "message", id: "a1", parentId: "u1", timestamp: at(2), message: assistant("a1") },
      { type: "message", id: "u2", timestamp: at(3), message: user("another root") },
      { type: "message", id: "a2", parentId: "u2", timestamp: at(4), message: assistant("a2") },
    ];
    // The one difference: our entry holds the parent it reads, null, where pi's has no key.
    const ours = assertReadAlike(lines(records), "no parentId", false);
    assert.deepEqual(
      ours.getTree().map((root) => root.entry.id),
      ["u1", "u2"],
    );
    assert.equal(ours.getEntry("u1")?.parentId, null);
    assert.deepEqual(ours.getIssues(), []);
    const id = ours.appendMessage(user("next"));
    ours.close();
    const pi = PiSessionManager.open(ours.getSessionFile() as string);
    assert.deepEqual(
      pi.getBranch().map((e) => e.id),
      ["u2", "a2", id],
    );
  });
});

describe("entries whose own fields another writer named otherwise", () => {
  // Shaped on a port of pi that writes its fields in snake_case: pi reads every line that parses.
  const records = [
    HEADER,
    { type: "message", id: "u1", parentId: null, timestamp: at(1), message: user("q1") },
    { type: "message", id: "a1", parentId: "u1", timestamp: at(2), message: assistant("a1") },
    { type: "thinking_level_change", id: "t1", parentId: "a1", timestamp: at(3), thinking_level: "high" },
    {
      type: "model_change",
      id: "m1",
      parentId: "t1",
      timestamp: at(4),
      model: "openai/gpt-5.2",
      model_metadata: { provider: "openai", model_id: "gpt-5.2" },
    },
    { type: "message", id: "u2", parentId: "m1", timestamp: at(5), message: user("q2") },
    { type: "message", id: "a2", parentId: "u2", timestamp: at(6), message: assistant("a2") },
    {
      type: "compaction",
      id: "c1",
      parentId: "a2",
      timestamp: at(7),
      summary: "Kept the useful work",
      tokens_before: 1234,
      first_kept_entry_index: 0,
    },
    { type: "message", id: "u3", parentId: "c1", timestamp: at(8), message: user("q3") },
    { type: "label", id: "l1", parentId: "u3", timestamp: at(9), target_id: "u1", label: "start" },
    { type: "message", id: "a3", parentId: "l1", timestamp: at(10), message: assistant("a3") },
  ];

  test("keep their place in the tree and the history after them, as in pi", () => {
    const branch = ["u1", "a1", "t1", "m1", "u2", "a2", "c1", "u3", "l1", "a3"];
    const { files, ours, pi } = openAlike(records, branch);
    assert.deepEqual(ours.getEntry("m1"), pi.getEntry("m1"));
    assert.deepEqual(
      ours.getTree().map((root) => root.entry.id),
      pi.getTree().map((root) => root.entry.id),
    );
    // A compaction without tokensBefore is a compaction: its summary, then what follows it.
    const context = ours.buildSessionContext();
    const piContext = pi.buildSessionContext();
    assert.deepEqual(context.messages, piContext.messages);
    assert.deepEqual(
      context.messages.map((m) => m.role),
      ["compactionSummary", "user", "assistant"],
    );
    assert.equal(context.model?.modelId, piContext.model?.modelId);
    assert.equal(ours.getLabel("u1"), pi.getLabel("u1"));
    // Where pi takes the missing field as undefined, ours takes nothing from the entry.
    assert.equal(piContext.thinkingLevel, undefined);
    assert.equal(context.thinkingLevel, "off");
    assert.deepEqual(
      ours.getIssues().map((issue) => [issue.code, issue.severity, issue.line]),
      [
        ["malformed_entry", "warning", 4],
        ["malformed_entry", "warning", 5],
        ["malformed_entry", "warning", 10],
      ],
    );
    const next = ours.appendMessage(user("q4"));
    ours.close();
    assert.deepEqual(ids(PiSessionManager.open(files.ours).getBranch()).at(-1), next);
  });
});

describe("headers other writers leave", () => {
  const body = (header: Record<string, unknown>) =>
    lines([
      { ...HEADER, ...header },
      { type: "message", id: "u1", parentId: null, timestamp: at(1), message: user("q1") },
      { type: "message", id: "a1", parentId: "u1", timestamp: at(2), message: assistant("a1") },
    ]);

  // pi opens each of these: it compares `version ?? 1` with numbers, and asks only for a string id.
  for (const [name, header] of [
    ['a version written as the string "3"', { version: "3" }],
    ["a version that is no number at all", { version: "v3" }],
    ["an empty session id", { id: "" }],
  ] as const) {
    test(`${name}: the same session as pi's, header and all`, () => {
      const files = twoCopies(freshDir(), body(header));
      const ours = assertReadAlike(body(header), name);
      const pi = PiSessionManager.open(files.pi);
      assert.deepEqual(ours.getHeader(), pi.getHeader());
      assert.equal(ours.getSessionId(), pi.getSessionId());
      assert.deepEqual(
        ours.getBranch().map((e) => e.id),
        ["u1", "a1"],
      );
      assert.deepEqual(ours.getIssues(), []);
      const next = ours.appendMessage(user("q2"));
      ours.close();
      assert.equal(PiSessionManager.open(ours.getSessionFile() as string).getLeafId(), next);
    });
  }

  // pi migrates these as the version they convert to: new ids for v1 (a null version is 1, "" is 0).
  for (const [name, header, from] of [
    ["a null version", { version: null }, 1],
    ['a version written as the string ""', { version: "" }, 1],
    ['a version written as the string "2"', { version: "2" }, 2],
  ] as const) {
    test(`${name}: migrated from v${from}, as pi migrates it`, () => {
      const files = twoCopies(freshDir(), body(header));
      const ours = SessionManager.open(files.ours);
      const pi = PiSessionManager.open(files.pi);
      const roles = (m: SessionManager | PiSessionManager) =>
        m.buildSessionContext().messages.map((message) => message.role);
      assert.deepEqual(roles(ours), roles(pi));
      assert.equal(ours.getBranch().length, 2);
      assert.equal(ours.getHeader()?.version, 3);
      const kept = ours.getBranch()[0]?.id === "u1";
      assert.equal(kept, from === 2, "v2 keeps its ids, v1 gets new ones");
      ours.close();
    });
  }
});

describe("entries with no timestamp, or one that is not a string", () => {
  const records = [
    HEADER,
    { type: "message", id: "u1", parentId: null, timestamp: at(1), message: user("q1") },
    { type: "message", id: "a1", parentId: "u1", message: assistant("a1 with no time") },
    {
      type: "thinking_level_change",
      id: "t1",
      parentId: "a1",
      timestamp: 1767225600000,
      thinkingLevel: "high",
    },
    { type: "message", id: "u2", parentId: "t1", timestamp: at(4), message: user("q2") },
  ];

  test("keep their place and the history after them, as in pi; their messages reach the model", () => {
    const { files, ours, pi } = openAlike(records, ["u1", "a1", "t1", "u2"]);
    assert.deepEqual(ours.getEntry("t1"), pi.getEntry("t1"));
    // A message with a role reaches the model whatever else is wrong with its entry, in both.
    // Nothing else is taken from such an entry here: pi takes the level, ours passes over it.
    const context = ours.buildSessionContext();
    const piContext = pi.buildSessionContext();
    assert.deepEqual(context.messages, piContext.messages);
    assert.deepEqual(
      context.messages.map((m) => m.role),
      ["user", "assistant", "user"],
    );
    assert.deepEqual(context.model, piContext.model);
    assert.equal(piContext.thinkingLevel, "high");
    assert.equal(context.thinkingLevel, "off");
    assert.deepEqual(
      ours.getIssues().map((issue) => [issue.code, issue.line]),
      [
        ["malformed_entry", 3],
        ["malformed_entry", 4],
      ],
    );
    const next = ours.appendMessage(user("q3"));
    ours.close();
    assert.deepEqual(ids(PiSessionManager.open(files.ours).getBranch()).at(-1), next);
  });
});
