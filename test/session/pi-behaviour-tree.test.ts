import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import { isSessionTreeError } from "../../src/core/errors.js";
import { SessionManager } from "../../src/session/session-manager.js";
import { assistant, contextTexts, runOnBoth, user } from "./support/scenario.js";

/** The behaviour list of pi's own session-manager tests, each run on ours and on pi 0.73.1. */
describe("pi's session behaviours: tree and context", () => {
  test("a new session has an empty context", () => {
    const { ours } = runOnBoth(() => {}, "empty");
    assert.deepEqual(ours.buildSessionContext().messages, []);
    assert.equal(ours.buildSessionContext().thinkingLevel, "off");
    assert.equal(ours.buildSessionContext().model, null);
    assert.equal(ours.getLeafId(), null);
    assert.deepEqual(ours.getTree(), []);
  });

  test("siblings: both children kept in order, the context follows the leaf only", () => {
    let root = "";
    const { ours } = runOnBoth((sm) => {
      root = sm.appendMessage(user("question"));
      sm.appendMessage(assistant("first answer"));
      sm.branch(root);
      sm.appendMessage(assistant("second answer"));
    }, "siblings");
    assert.deepEqual(
      ours.getChildren(root).map((e) => contextTextOf(e)),
      ["first answer", "second answer"],
    );
    assert.deepEqual(contextTexts(ours), ["question", "second answer"]);
    assert.equal(ours.getTree()[0]?.children.length, 2);
  });

  test("compaction: summary first, then the kept range, then what came after", () => {
    const { ours } = runOnBoth((sm) => {
      sm.appendMessage(user("u1"));
      sm.appendMessage(assistant("a1"));
      const kept = sm.appendMessage(user("u2"));
      sm.appendMessage(assistant("a2"));
      sm.appendCompaction("S1", kept, 1000);
      sm.appendMessage(user("u3"));
    }, "compaction");
    assert.deepEqual(contextTexts(ours), ["compactionSummary:S1", "u2", "a2", "u3"]);
  });

  test("compaction twice: the latest compaction on the path wins", () => {
    const { ours } = runOnBoth((sm) => {
      sm.appendMessage(user("u1"));
      const kept1 = sm.appendMessage(assistant("a1"));
      sm.appendCompaction("S1", kept1, 1000);
      sm.appendMessage(user("u2"));
      const kept2 = sm.appendMessage(assistant("a2"));
      sm.appendMessage(user("u3"));
      sm.appendCompaction("S2", kept2, 2000);
      sm.appendMessage(assistant("a3"));
    }, "compaction twice");
    assert.deepEqual(contextTexts(ours), ["compactionSummary:S2", "a2", "u3", "a3"]);
  });

  test("a compaction on another branch does not apply; one keeping an entry off the path keeps nothing", () => {
    let off = "";
    const { ours } = runOnBoth((sm) => {
      const u1 = sm.appendMessage(user("u1"));
      off = sm.appendMessage(assistant("a1"));
      sm.appendCompaction("S-other-branch", off, 1);
      sm.branch(u1);
      sm.appendMessage(assistant("b1"));
      sm.appendCompaction("S-off", off, 2);
      sm.appendMessage(user("u2"));
    }, "compaction off path");
    assert.deepEqual(contextTexts(ours), ["compactionSummary:S-off", "u2"]);
    const warnings = ours.buildSessionContext().warnings;
    assert.deepEqual(
      warnings.map((w) => w.code),
      ["first_kept_not_on_path"],
    );
  });

  test("branch summaries, from an entry and from the root (fromId 'root', a new root)", () => {
    let summaryId = "";
    const { ours } = runOnBoth((sm) => {
      const u1 = sm.appendMessage(user("u1"));
      sm.appendMessage(assistant("abandoned"));
      sm.branchWithSummary(u1, "tried X", { files: ["a.ts"] });
      sm.appendMessage(assistant("a1"));
      summaryId = sm.branchWithSummary(null, "start over");
      sm.appendMessage(user("fresh"));
    }, "branch summaries");
    assert.deepEqual(contextTexts(ours), ["branchSummary:start over", "fresh"]);
    const summary = ours.getEntry(summaryId);
    assert.equal(summary?.parentId, null);
    assert.equal(summary?.type === "branch_summary" && summary.fromId, "root");
    assert.equal(ours.getTree().length, 2, "two roots");
  });

  test("an empty branch summary is kept in the tree but not in the context", () => {
    const { ours } = runOnBoth((sm) => {
      const u1 = sm.appendMessage(user("u1"));
      sm.appendMessage(assistant("a1"));
      sm.branchWithSummary(u1, "");
    }, "empty summary");
    assert.deepEqual(contextTexts(ours), ["u1"]);
  });

  test("labels: set, change, clear, last wins; shown in the tree", () => {
    let a = "";
    let b = "";
    const { ours } = runOnBoth((sm) => {
      a = sm.appendMessage(user("u1"));
      b = sm.appendMessage(assistant("a1"));
      sm.appendLabelChange(a, "first");
      sm.appendLabelChange(a, "second");
      sm.appendLabelChange(b, "keep");
      sm.appendLabelChange(b, "");
      sm.appendLabelChange(b, "again");
      sm.appendLabelChange(b, undefined);
    }, "labels");
    assert.equal(ours.getLabel(a), "second");
    assert.equal(ours.getLabel(b), undefined);
    assert.equal(ours.getTree()[0]?.label, "second");
    assert.deepEqual(contextTexts(ours), ["u1", "a1"], "labels are not context");
  });

  test("session name: the latest session_info, trimmed; an empty name clears it", () => {
    const { ours } = runOnBoth((sm) => {
      sm.appendSessionInfo("  first  ");
    }, "name");
    assert.equal(ours.getSessionName(), "first");
    const cleared = runOnBoth((sm) => {
      sm.appendSessionInfo("first");
      sm.appendSessionInfo("   ");
    }, "name cleared").ours;
    assert.equal(cleared.getSessionName(), undefined);
  });

  test("model and thinking level come from the path; an assistant message sets the model", () => {
    const { ours } = runOnBoth((sm) => {
      sm.appendThinkingLevelChange("high");
      sm.appendModelChange("openai", "gpt-5");
      sm.appendMessage(user("u1"));
      sm.appendMessage(assistant("a1", { provider: "google", model: "gemini-2.5-pro" }));
    }, "model");
    const context = ours.buildSessionContext();
    assert.equal(context.thinkingLevel, "high");
    assert.deepEqual(context.model, { provider: "google", modelId: "gemini-2.5-pro" });
  });

  test("custom entries are extension state, custom message entries are context (role custom)", () => {
    const { ours } = runOnBoth((sm) => {
      sm.appendCustomEntry("todo", { items: 1 });
      sm.appendCustomMessageEntry("note", "visible note", true, { d: 1 });
      sm.appendCustomEntry("todo", { items: 2 });
    }, "custom");
    const context = ours.buildSessionContext();
    assert.deepEqual(context.extensionState, { todo: { items: 2 } });
    assert.equal(context.messages.length, 1);
    assert.equal((context.messages[0] as { role: string }).role, "custom");
  });

  test("unknown ids: branch and label throw entry_not_found (pi throws too); getBranch is empty", () => {
    const ours = SessionManager.inMemory();
    const pi = PiSessionManager.inMemory();
    for (const sm of [ours, pi as unknown as SessionManager]) {
      assert.throws(() => sm.branch("nope"));
      assert.throws(() => sm.appendLabelChange("nope", "x"));
      assert.throws(() => sm.branchWithSummary("nope", "s"));
      assert.deepEqual(sm.getBranch("nope"), []);
    }
    for (const call of [
      () => ours.branch("nope"),
      () => ours.appendLabelChange("nope", "x"),
      () => ours.branchWithSummary("nope", "s"),
      () => ours.createBranchedSession("nope"),
    ]) {
      assert.throws(call, (error) => isSessionTreeError(error, "entry_not_found"));
    }
    assert.deepEqual(ours.getEntries(), [], "nothing was appended by the failed calls");
  });

  test("resetLeaf: the next append is a new root", () => {
    const { ours } = runOnBoth((sm) => {
      sm.appendMessage(user("u1"));
      sm.resetLeaf();
      sm.appendMessage(user("again"));
    }, "reset");
    assert.equal(ours.getTree().length, 2);
    assert.deepEqual(contextTexts(ours), ["again"]);
  });
});

function contextTextOf(entry: { type: string }): string {
  const message = (entry as { message?: { content?: { text?: string }[] } }).message;
  return message?.content?.map((b) => b.text).join("") ?? "";
}
