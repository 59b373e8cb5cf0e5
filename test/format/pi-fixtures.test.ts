import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import { SessionManager } from "../../src/session/session-manager.js";
import { piFields } from "../session/support/disk-checks.js";
import { assertSameSession, pairByPosition, SAME_IDS } from "../session/support/pair.js";
import { messageMaker } from "../support/messages.js";

/**
 * The real pi sessions (v1) from pi's own test fixtures, beside the work tree (../shared/fixtures/pi)
 * or where SESSIONTREE_PI_FIXTURES says. Read-only, so every test works on a copy.
 */
const FIXTURES =
  process.env.SESSIONTREE_PI_FIXTURES ??
  join(dirname(fileURLToPath(import.meta.url)), "../../../shared/fixtures/pi");
const root = mkdtempSync(join(tmpdir(), "st-fixtures-"));
after(() => rmSync(root, { recursive: true, force: true }));
let copies = 0;
const { user } = messageMaker();

function copyOf(name: string): string {
  const dir = join(root, `c${++copies}`);
  mkdirSync(dir);
  const path = join(dir, name);
  copyFileSync(join(FIXTURES, name), path);
  return path;
}

for (const name of ["large-session.jsonl", "before-compaction.jsonl"]) {
  describe(`pi fixture ${name}`, () => {
    test("opens, migrates and projects the same session as pi", () => {
      const oursPath = copyOf(name);
      const original = readFileSync(oursPath);
      const ours = SessionManager.open(oursPath);
      const pi = PiSessionManager.open(copyOf(name));
      assertSameSession(ours, pi, pairByPosition(ours, pi), name, { deep: true });
      assert.deepEqual(ours.getIssues(), [], "a clean file has no issues");
      assert.ok(readFileSync(oursPath).equals(original), "reading never writes");
      assert.deepEqual(readdirSync(dirname(oursPath)), [name], "no backup or temp file from a read");
      ours.close();
    });

    test("appending rewrites it as v3 atomically, keeps a byte-identical backup, and pi agrees", () => {
      const path = copyOf(name);
      const original = readFileSync(path);
      const ours = SessionManager.open(path);
      const idsBefore = ours.getEntries().map((e) => e.id);
      const leafBefore = ours.getLeafId();
      const added = ours.appendMessage(user("after migration"));

      const backups = readdirSync(dirname(path)).filter((f) => f !== name);
      assert.deepEqual(backups, [`${name}.v1.bak`]);
      assert.ok(
        readFileSync(join(dirname(path), backups[0] as string)).equals(original),
        "backup is the original",
      );
      const lines = readFileSync(path, "utf8").trimEnd().split("\n");
      const header = JSON.parse(lines[0] as string);
      assert.equal(header.version, 3);
      assert.equal(lines.filter((l) => JSON.parse(l).type === "session").length, 1, "exactly one header");
      assert.equal(header.id, JSON.parse(original.toString("utf8").split("\n")[0] as string).id);
      assert.deepEqual(
        ours.getEntries().map((e) => e.id),
        [...idsBefore, added],
        "ids kept through the rewrite",
      );
      assert.equal(ours.getEntry(added)?.parentId, leafBefore);

      const rewritten = readFileSync(path);
      const pi = PiSessionManager.open(path);
      assert.ok(readFileSync(path).equals(rewritten), "pi found nothing to migrate");
      assertSameSession(ours, pi, SAME_IDS, `${name} rewritten`, { deep: true });
      assert.deepEqual(pi.buildSessionContext(), piFields(ours.buildSessionContext()));
      ours.close();
    });
  });
}

describe("pi fixture facts", () => {
  test("large-session projects 914 messages, thinking off, anthropic/claude-sonnet-4-5", () => {
    const ours = SessionManager.open(copyOf("large-session.jsonl"));
    const context = ours.buildSessionContext();
    assert.equal(context.messages.length, 914);
    assert.equal(context.thinkingLevel, "off");
    assert.deepEqual(context.model, { provider: "anthropic", modelId: "claude-sonnet-4-5" });
    assert.equal(ours.getEntries().length, 1018);
    ours.close();
  });

  test("before-compaction's v1 firstKeptEntryIndex becomes the id of that line's entry", () => {
    const path = copyOf("before-compaction.jsonl");
    const raw = readFileSync(path, "utf8")
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    const ours = SessionManager.open(path);
    const entries = ours.getEntries();
    const compactions = entries.filter((e) => e.type === "compaction");
    const rawCompactions = raw.filter((e) => e.type === "compaction");
    assert.equal(compactions.length, 2);
    compactions.forEach((compaction, i) => {
      const index = rawCompactions[i].firstKeptEntryIndex as number;
      // Index into the parsed lines, header included: entry i of the file is line i (0 = header).
      assert.equal(compaction.firstKeptEntryId, entries[index - 1]?.id);
      assert.equal("firstKeptEntryIndex" in compaction, false);
    });
    assert.equal(ours.buildSessionContext().compaction?.keptFound, true);
    assert.equal(ours.getHeader()?.branchedFrom, raw[0].branchedFrom, "unknown header fields kept");
    ours.close();
  });
});
