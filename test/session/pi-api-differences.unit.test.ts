import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import { SessionManager } from "../../src/session/session-manager.js";
import { tempFolders } from "../support/temp-folders.js";
import { piFields } from "./support/disk-checks.js";
import { assistant, contextTexts, user } from "./support/scenario.js";
import { twoCopies } from "./support/two-copies.js";

// Differences from pi 0.73.1 found by a differential hunt over sequences of public API calls
// (40 seeds × 250 steps of every append, branch and reopen): each test compares against the real
// pi package, and each failed before its fix.

const CWD = "/work/project";
const { fresh: freshDir } = tempFolders("st-pi-api-diff");

type Writer = Pick<SessionManager, "appendMessage" | "appendCompaction">;

/**
 * u1 a1 u2 a2, a compaction keeping from u2 whose tokensBefore is NaN (JSON writes it as null),
 * then u3 a3: the model should see the summary, u2 a2, u3 a3, and not u1 a1.
 */
function compactWithNaNTokens(sm: Writer): void {
  sm.appendMessage(user("u1"));
  sm.appendMessage(assistant("a1"));
  const u2 = sm.appendMessage(user("u2"));
  sm.appendMessage(assistant("a2"));
  sm.appendCompaction("summary of u1", u2, Number.NaN);
  sm.appendMessage(user("u3"));
  sm.appendMessage(assistant("a3"));
}

const COMPACTED = ["compactionSummary:summary of u1", "u2", "a2", "u3", "a3"];

describe("a compaction whose tokensBefore is not a number on disk", () => {
  test("written by pi as null (NaN through JSON) is still a compaction, as pi reads it", () => {
    const pi = PiSessionManager.create(CWD, freshDir());
    compactWithNaNTokens(pi as unknown as Writer);
    const text = readFileSync(pi.getSessionFile() as string, "utf8");
    assert.match(text, /"tokensBefore":null/);
    const files = twoCopies(freshDir(), text);
    const ours = SessionManager.open(files.ours);
    const piReading = PiSessionManager.open(files.pi);
    assert.deepEqual(contextTexts(piReading as unknown as SessionManager), COMPACTED);
    assert.deepEqual(contextTexts(ours), COMPACTED);
    assert.deepEqual(piFields(ours.buildSessionContext()), piReading.buildSessionContext());
    ours.close();
  });

  test("written by ours: the context after reopening is the context before", () => {
    const ours = SessionManager.create(CWD, freshDir());
    compactWithNaNTokens(ours);
    assert.deepEqual(contextTexts(ours), COMPACTED);
    const path = ours.getSessionFile() as string;
    ours.close();
    const reopened = SessionManager.open(path);
    assert.deepEqual(contextTexts(reopened), COMPACTED);
    assert.deepEqual(
      piFields(reopened.buildSessionContext()),
      PiSessionManager.open(path).buildSessionContext(),
    );
    reopened.close();
  });
});

describe("entry key order on disk", () => {
  test("custom and custom_message entries are written with pi's key order", () => {
    const script = (sm: SessionManager) => {
      sm.appendMessage(user("q"));
      sm.appendMessage(assistant("r")); // pi writes its file from the first assistant message on
      sm.appendCustomEntry("ext-state", { n: 1 });
      sm.appendCustomMessageEntry("ext-msg", "note", true, { k: 1 });
    };
    const dir = freshDir();
    const pi = PiSessionManager.create(CWD, join(dir, "pi"));
    script(pi as unknown as SessionManager);
    const ours = SessionManager.create(CWD, join(dir, "ours"));
    script(ours);
    ours.close();
    const keysOfLines = (path: string) =>
      readFileSync(path, "utf8")
        .trimEnd()
        .split("\n")
        .map((line) => Object.keys(JSON.parse(line) as object).join(","));
    const piKeys = keysOfLines(pi.getSessionFile() as string);
    assert.deepEqual(piKeys.slice(3), [
      "type,customType,data,id,parentId,timestamp",
      "type,customType,content,display,details,id,parentId,timestamp",
    ]);
    assert.deepEqual(keysOfLines(ours.getSessionFile() as string), piKeys);
  });
});

describe("a new session's header", () => {
  test("keeps an empty parentSession, as pi writes it", () => {
    const pi = PiSessionManager.inMemory(CWD);
    const ours = SessionManager.inMemory(CWD);
    pi.newSession({ parentSession: "" });
    ours.newSession({ parentSession: "" });
    const { id: _pi, timestamp: _piAt, ...piHeader } = pi.getHeader() as unknown as Record<string, unknown>;
    const {
      id: _ours,
      timestamp: _oursAt,
      ...oursHeader
    } = ours.getHeader() as unknown as Record<string, unknown>;
    assert.deepEqual(oursHeader, piHeader);
    assert.equal(oursHeader.parentSession, "");
  });
});
