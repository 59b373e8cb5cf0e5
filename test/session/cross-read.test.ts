import assert from "node:assert/strict";
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import { isLeafMarker } from "../../src/core/entry.js";
import { SessionManager } from "../../src/session/session-manager.js";
import { messageMaker } from "../support/messages.js";
import { piFields } from "./support/disk-checks.js";
import { assertSameSession, SAME_IDS } from "./support/pair.js";

const CWD = "/work/project";
const root = mkdtempSync(join(tmpdir(), "st-cross-"));
after(() => rmSync(root, { recursive: true, force: true }));
let dirCount = 0;
const freshDir = () => join(root, `d${++dirCount}`);

const { user, assistant } = messageMaker();

type Writer = Pick<
  SessionManager,
  | "appendMessage"
  | "appendCompaction"
  | "appendLabelChange"
  | "appendThinkingLevelChange"
  | "appendSessionInfo"
  | "appendCustomMessageEntry"
  | "branch"
  | "branchWithSummary"
>;

/** A session with two branches, a compaction, labels, a name and a custom message. Returns ids. */
function writeHistory(sm: Writer) {
  const u1 = sm.appendMessage(user("one"));
  const a1 = sm.appendMessage(assistant("reply one"));
  sm.appendThinkingLevelChange("high");
  const u2 = sm.appendMessage(user("two"));
  const a2 = sm.appendMessage(assistant("reply two"));
  sm.appendCompaction("summary of one", u2, 1234);
  sm.appendLabelChange(u1, "start");
  sm.appendSessionInfo("cross");
  sm.branchWithSummary(a1, "tried something else");
  sm.appendCustomMessageEntry("note", "remember this", true, { k: 1 });
  const u3 = sm.appendMessage(user("three"));
  const a3 = sm.appendMessage(assistant("reply three"));
  return { u1, a1, u2, a2, u3, a3 };
}

describe("cross-reading files between sessiontree and pi 0.73.1", () => {
  test("our reading of a file pi wrote equals pi's reading of it", () => {
    const pi = PiSessionManager.create(CWD, freshDir());
    writeHistory(pi as unknown as Writer);
    const file = pi.getSessionFile() as string;
    const ours = SessionManager.open(file);
    const piAgain = PiSessionManager.open(file);
    assertSameSession(ours, piAgain, SAME_IDS, "pi's file", { deep: true });
    assert.deepEqual(piFields(ours.buildSessionContext()), piAgain.buildSessionContext());
    assert.deepEqual(ours.getHeader(), piAgain.getHeader());
    assert.deepEqual(ours.getIssues(), []);
    ours.close();
  });

  test("pi's reading of a file we wrote equals ours", () => {
    const ours = SessionManager.create(CWD, freshDir());
    writeHistory(ours);
    const file = ours.getSessionFile() as string;
    const pi = PiSessionManager.open(file);
    assertSameSession(ours, pi, SAME_IDS, "our file", { deep: true });
    assert.deepEqual(pi.buildSessionContext(), piFields(ours.buildSessionContext()));
    ours.close();
  });

  test("a rewind with no append after it survives reopening ours, and pi builds the same context", () => {
    const dir = freshDir();
    const ours = SessionManager.create(CWD, dir);
    const ids = writeHistory(ours);
    ours.branch(ids.u2);

    const reopened = SessionManager.open(ours.getSessionFile() as string);
    assert.equal(reopened.getLeafId(), ids.u2);
    assertSameSession(reopened, ours, SAME_IDS, "reopened", { deep: true });
    ours.close();
    const pi = PiSessionManager.open(ours.getSessionFile() as string);
    assert.deepEqual(pi.buildSessionContext(), piFields(reopened.buildSessionContext()));
    assert.equal(pi.buildSessionContext().messages.length, 3, "one, reply one, two");
    reopened.close();

    // pi's own file loses the rewind: its leaf on reopening is the last line.
    const piWriter = PiSessionManager.create(CWD, freshDir());
    const piIds = writeHistory(piWriter as unknown as Writer);
    piWriter.branch(piIds.u2);
    const piReopened = PiSessionManager.open(piWriter.getSessionFile() as string);
    assert.equal(piReopened.getLeafId(), piIds.a3);
  });

  test("a reset leaf with no append survives reopening; pi sees an empty context too", () => {
    const ours = SessionManager.create(CWD, freshDir());
    writeHistory(ours);
    ours.resetLeaf();
    const reopened = SessionManager.open(ours.getSessionFile() as string);
    assert.equal(reopened.getLeafId(), null);
    assert.deepEqual(reopened.buildSessionContext().messages, []);
    const pi = PiSessionManager.open(ours.getSessionFile() as string);
    assert.deepEqual(pi.buildSessionContext(), { messages: [], thinkingLevel: "off", model: null });
    reopened.close();
    ours.close();
  });

  test("pi appending after our rewind continues from the rewound entry, and we read pi's append", () => {
    const ours = SessionManager.create(CWD, freshDir());
    const ids = writeHistory(ours);
    ours.branch(ids.a2);
    ours.close();
    const file = ours.getSessionFile() as string;

    const pi = PiSessionManager.open(file);
    const piNew = pi.appendMessage(user("pi continues") as never);
    // pi's entry hangs under our leaf marker; its context is the rewound path plus its message.
    const reopened = SessionManager.open(file);
    assert.equal(reopened.getLeafId(), piNew);
    assert.deepEqual(
      piFields(reopened.buildSessionContext()),
      PiSessionManager.open(file).buildSessionContext(),
    );
    const texts = reopened.buildSessionContext().messages.map((m) => (m as { content?: unknown }).content);
    assert.equal(texts.at(-1), "pi continues");
    assert.ok(reopened.getBranch().some((e) => e.id === ids.a2));
    assert.deepEqual(reopened.getIssues(), []);
    reopened.close();
  });

  test("our appends to a file pi wrote keep the file readable by pi, with the same context", () => {
    const pi = PiSessionManager.create(CWD, freshDir());
    const ids = writeHistory(pi as unknown as Writer);
    const file = pi.getSessionFile() as string;
    const before = readFileSync(file);
    const ours = SessionManager.open(file);
    ours.branch(ids.u1);
    ours.appendMessage(assistant("our branch"));
    ours.appendLabelChange(ids.a3, "pi's end");
    const after = readFileSync(file);
    assert.ok(after.subarray(0, before.length).equals(before), "pi's bytes are a prefix of the new file");
    const piReading = PiSessionManager.open(file);
    assert.deepEqual(piReading.buildSessionContext(), piFields(ours.buildSessionContext()));
    // pi sees our leaf marker (written by the rewind) as a custom entry; otherwise the same entries.
    const piEntries = piReading.getEntries().filter((e) => !isLeafMarker(e));
    assert.equal(piReading.getEntries().length, piEntries.length + 1, "one leaf marker");
    assert.deepEqual(
      piEntries,
      ours.getEntries().map((e) => JSON.parse(JSON.stringify(e))),
    );
    ours.close();
  });

  test("a line pi cannot parse stays reported on our side while pi silently skips it", () => {
    const ours = SessionManager.create(CWD, freshDir());
    writeHistory(ours);
    ours.close();
    const file = ours.getSessionFile() as string;
    appendFileSync(file, "{not json\n");
    const reopened = SessionManager.open(file);
    const issue = reopened.getIssues().find((i) => i.code === "invalid_json");
    assert.ok(issue, "the damaged line is reported");
    assert.deepEqual(
      piFields(reopened.buildSessionContext()),
      PiSessionManager.open(file).buildSessionContext(),
    );
    reopened.close();
  });
});
