import assert from "node:assert/strict";
import { appendFileSync, copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { FIXTURES, runScenario, tempWorkspace } from "./helpers.js";

describe("fsck, repair, migrate", () => {
  const ws = tempWorkspace();
  const garbage = join(ws.dir, "garbage");
  const damaged = join(ws.dir, "damaged.jsonl");
  const clean = join(ws.dir, "clean.jsonl");
  let damagedBefore: Buffer;
  let r: ReturnType<typeof runScenario>;

  before(() => {
    mkdirSync(garbage);
    writeFileSync(join(garbage, "noise.jsonl"), "not json at all\n{also not\n");
    writeFileSync(join(garbage, "empty.jsonl"), "");
    writeFileSync(join(garbage, "array.jsonl"), "[1,2,3]\n");
    // A v1 fixture with a damaged line in the middle and a torn tail.
    const lines = readFileSync(join(FIXTURES, "large-session.jsonl"), "utf8").split("\n");
    lines.splice(500, 0, '{"type":"message","timestamp":"2025-11-21T00:00:00.000Z","message":{"role":"user"');
    writeFileSync(damaged, lines.join("\n"));
    appendFileSync(damaged, '{"type":"message","tim');
    damagedBefore = readFileSync(damaged);
    const header = {
      type: "session",
      version: 3,
      id: "0190aaaa-0000-7000-8000-000000000000",
      timestamp: "2026-01-01T00:00:00.000Z",
      cwd: "/x",
    };
    writeFileSync(clean, `${JSON.stringify(header)}\n`);
    copyFileSync(join(FIXTURES, "before-compaction.jsonl"), join(ws.dir, "old.jsonl"));
    r = runScenario(ws.dir, [
      /* 0 */ { args: ["fsck", "garbage", "--json"] },
      /* 1 */ { args: ["fsck", "garbage"] },
      /* 2 */ { args: ["fsck", "damaged.jsonl", "--json"] },
      /* 3 */ { args: ["fsck", "clean.jsonl"] },
      /* 4 */ { args: ["migrate", "damaged.jsonl", "--json"] },
      /* 5 */ { args: ["repair", "damaged.jsonl", "--dry-run", "--json"] },
      /* 6 */ { args: ["repair", "damaged.jsonl"] },
      /* 7 */ { args: ["fsck", "damaged.jsonl"] },
      /* 8 */ { args: ["repair", "damaged.jsonl", "--json"] },
      /* 9 */ { args: ["migrate", "old.jsonl", "--dry-run"] },
      /* 10 */ { args: ["migrate", "old.jsonl", "clean.jsonl", "--json"] },
      /* 11 */ { args: ["fsck"] },
      /* 12 */ { args: ["repair", "--all", "damaged.jsonl"] },
      /* 13 */ { args: ["fsck", "no-such.jsonl"] },
      /* 14 */ { args: ["show", "clean.jsonl", "--json"] },
      /* 15 */ { args: ["export", "clean.jsonl"] },
    ]);
  });
  after(() => ws.cleanup());

  it("fsck on a folder of garbage reports each file and exits 1", () => {
    assert.equal(r[0]?.code, 1);
    const out = JSON.parse(r[0]?.stdout ?? "");
    assert.equal(out.checked, 3);
    assert.equal(out.withFindings, 3);
    const noise = out.files.find((f: { path: string }) => f.path.endsWith("noise.jsonl"));
    assert.equal(noise.header, null);
    assert.ok(
      noise.issues.some(
        (i: { code: string; line: number; offset: number }) =>
          i.code === "invalid_header" && i.line === 1 && i.offset === 0,
      ),
    );
    const empty = out.files.find((f: { path: string }) => f.path.endsWith("empty.jsonl"));
    assert.deepEqual(
      empty.issues.map((i: { code: string }) => i.code),
      ["empty_session_file"],
    );
    assert.match(r[1]?.stdout ?? "", /FAIL .*empty\.jsonl \(not a session: an empty file\)/);
    assert.match(
      r[1]?.stdout ?? "",
      /FAIL .*noise\.jsonl \(not a session: not JSON lines \(2 lines of text\)\)/,
    );
    assert.match(r[1]?.stdout ?? "", /3 of 3 file\(s\) with findings/);
  });

  it("fsck points at the damaged line with its line number and byte offset, and at the torn tail", () => {
    assert.equal(r[2]?.code, 1);
    const [file] = JSON.parse(r[2]?.stdout ?? "").files;
    const bad = file.issues.find((i: { code: string }) => i.code === "invalid_json");
    assert.equal(bad.line, 501);
    const offset = damagedBefore.indexOf(
      '{"type":"message","timestamp":"2025-11-21T00:00:00.000Z","message":{"role":"user"\n',
    );
    assert.equal(bad.offset, offset);
    assert.ok(file.issues.some((i: { code: string }) => i.code === "torn_tail"));
    assert.equal(r[3]?.code, 0);
    assert.match(r[3]?.stdout ?? "", /ok {3}.*clean\.jsonl \(0 entries, v3\)/);
  });

  it("migrate refuses a damaged file (repair's job) and leaves it untouched", () => {
    assert.equal(r[4]?.code, 1);
    assert.equal(JSON.parse(r[4]?.stdout ?? "").files[0].status, "refused");
    assert.equal(r[5]?.code, 1, "a dry run that would change the file is a finding");
    const dry = JSON.parse(r[5]?.stdout ?? "").files[0];
    assert.equal(dry.changed, true);
    assert.equal(dry.backupPath, null);
  });

  it("repair rewrites the file, keeps the original byte for byte, and fsck is then clean", () => {
    assert.equal(r[6]?.code, 0, r[6]?.stderr);
    assert.match(r[6]?.stdout ?? "", /repaired .*damaged\.jsonl/);
    assert.match(r[6]?.stdout ?? "", /dropped_line/);
    const backup = readdirSync(ws.dir).find((n) => n.startsWith("damaged.jsonl.bak-"));
    assert.ok(backup);
    assert.deepEqual(readFileSync(join(ws.dir, backup)), damagedBefore);
    assert.equal(r[7]?.code, 0, r[7]?.stdout);
    assert.equal(JSON.parse(r[8]?.stdout ?? "").files[0].changed, false, "a second repair changes nothing");
  });

  it("migrate rewrites v1 as v3 with a backup; a current file is left alone", () => {
    assert.equal(r[9]?.code, 0);
    assert.match(r[9]?.stdout ?? "", /would migrate .*old\.jsonl/);
    const out = JSON.parse(r[10]?.stdout ?? "");
    assert.deepEqual(
      out.files.map((f: { status: string }) => f.status),
      ["migrated", "current"],
    );
    assert.equal(
      JSON.parse(readFileSync(join(ws.dir, "old.jsonl"), "utf8").split("\n")[0] as string).version,
      3,
    );
    assert.ok(readdirSync(ws.dir).includes("old.jsonl.v1.bak"));
  });

  it("usage and missing files; an empty session shows and exports as empty", () => {
    assert.equal(r[11]?.code, 0, "an empty root has nothing to report");
    assert.match(r[11]?.stdout ?? "", /0 file\(s\) checked/);
    assert.equal(r[12]?.code, 2);
    assert.equal(r[13]?.code, 1);
    assert.match(r[13]?.stderr ?? "", /session_not_found/);
    assert.deepEqual(JSON.parse(r[14]?.stdout ?? "").messages, []);
    assert.match(r[15]?.stdout ?? "", /Entries on this branch: 0/);
  });
});
