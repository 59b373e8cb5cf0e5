import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { after, test } from "node:test";
import { isSessionTreeError } from "../../src/core/errors.js";
import { migrateFile } from "../../src/file/migrate.js";
import { SessionFile } from "../../src/file/session-file.js";
import { tempDir } from "./support.js";

const { dir, cleanup } = tempDir("migrate");
after(cleanup);
let n = 0;

/** A pi v1 file: no version in the header, no ids on the entries. */
function v1File(extraLines: string[] = []): string {
  const path = join(dir, `2026-01-01T00-00-00-000Z_0195f0a0-0000-7000-8000-00000000000${n++}.jsonl`);
  const message = (role: string, text: string, at: number) =>
    JSON.stringify({
      type: "message",
      timestamp: new Date(at).toISOString(),
      message: { role, content: [{ type: "text", text }], timestamp: at },
    });
  const lines = [
    JSON.stringify({ type: "session", id: "v1-session", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/p" }),
    message("user", "hello", 1),
    message("user", "again", 2),
    ...extraLines,
  ];
  writeFileSync(path, `${lines.join("\n")}\n`);
  return path;
}

function backupsOf(path: string): string[] {
  return readdirSync(dir).filter((name) => name.startsWith(`${basename(path)}.`));
}

test("a v1 file is rewritten as v3 under its ids, the original kept as <file>.v1.bak", () => {
  const path = v1File();
  const original = readFileSync(path);
  const idsRead = SessionFile.open(path)
    .tree.getEntries()
    .map((e) => e.id);
  const dry = migrateFile(path, { dryRun: true });
  assert.equal(dry.outcome, "would_migrate");
  assert.equal(dry.entriesWritten, 2);
  assert.deepEqual(readFileSync(path), original, "a dry run writes nothing");
  assert.deepEqual(backupsOf(path), []);

  const report = migrateFile(path);
  assert.equal(report.outcome, "migrated");
  assert.equal(report.from, 1);
  assert.equal(report.backupPath, `${path}.v1.bak`);
  assert.deepEqual(readFileSync(`${path}.v1.bak`), original);
  const file = SessionFile.open(path);
  assert.equal(file.migratedFrom, null);
  assert.equal(file.header.version, 3);
  assert.deepEqual(
    file.tree.getEntries().map((e) => e.id),
    idsRead,
    "ids given on reading stay",
  );
  assert.equal(migrateFile(path).outcome, "current");
  assert.deepEqual(backupsOf(path), [basename(`${path}.v1.bak`)]);
});

test("a damaged file is refused, or migrated leaving the damage in the backup only when asked", () => {
  const path = v1File(["{not json"]);
  const original = readFileSync(path);
  const refused = migrateFile(path);
  assert.equal(refused.outcome, "damaged");
  assert.ok(refused.findings.some((issue) => issue.code === "invalid_json"));
  assert.deepEqual(readFileSync(path), original);
  const report = migrateFile(path, { leaveOutDamaged: true });
  assert.equal(report.outcome, "migrated");
  assert.ok(
    report.findings.some((issue) => issue.code === "invalid_json"),
    "what was left out is listed",
  );
  assert.ok(readFileSync(report.backupPath as string, "utf8").includes("{not json"));
  assert.ok(!readFileSync(path, "utf8").includes("{not json"));
});

test("a file that is not a session is left alone; a missing one is session_not_found", () => {
  const junk = join(dir, "junk.jsonl");
  writeFileSync(junk, "not a session\n");
  assert.equal(migrateFile(junk).outcome, "not_a_session");
  assert.equal(readFileSync(junk, "utf8"), "not a session\n");
  assert.throws(
    () => migrateFile(join(dir, "missing.jsonl")),
    (error) => isSessionTreeError(error, "session_not_found"),
  );
  assert.equal(existsSync(join(dir, "missing.jsonl")), false);
});
