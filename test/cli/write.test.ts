import assert from "node:assert/strict";
import { copyFileSync, existsSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import { WriterLease } from "../../src/file/lease.js";
import { FIXTURES, readJsonl, runScenario, tempWorkspace } from "./helpers.js";

const ID = "d703a1a9-1b7b-4fb1-b512-c9738b1fe617";

describe("writing commands: checkout, label, name, fork/extract", () => {
  const ws = tempWorkspace();
  const folder = join(ws.root, "sessions", "Users-badlogic-workspaces-pi%2Dmono");
  const path = join(folder, `2025-11-20T23-33-50-805Z_${ID}.jsonl`);
  let ids: string[];
  let r: ReturnType<typeof runScenario>;

  before(() => {
    mkdirSync(folder, { recursive: true });
    copyFileSync(join(FIXTURES, "large-session.jsonl"), path);
    // v1 has no ids (each read invents them): migrate first, then the ids stay.
    const [migrated, tree] = runScenario(ws.dir, [
      { args: ["migrate", ID] },
      { args: ["tree", ID, "--json"] },
    ]);
    assert.equal(migrated?.code, 0, migrated?.stderr);
    assert.match(
      migrated?.stdout ?? "",
      new RegExp(`migrated .* \\(v1 → v3\\) original kept at .*\\.v1\\.bak · session ${ID}`),
    );
    ids = JSON.parse(tree?.stdout ?? "").nodes.map((n: { id: string }) => n.id);
    assert.equal(ids.length, 1018);
    const target = ids[100] as string;
    r = runScenario(ws.dir, [
      /* 0 */ { args: ["label", target, "first", "attempt", "-s", "d703"] },
      /* 1 */ { args: ["checkout", target, "-s", ID, "--json"] },
      /* 2 */ { args: ["show", ID, "--json"] },
      /* 3 */ { args: ["name", "Theme", "port", "-s", "d703", "--json"] },
      /* 4 */ { args: ["name", "-s", "d703"] },
      /* 5 */ { args: ["tree", "d703", "--json"] },
      /* 6 */ { args: ["fork", "d703", "--json"] },
      /* 7 */ { args: ["extract", "d703", "--at", ids[10] as string, "--json", "--cwd", "elsewhere"] },
      /* 8 */ { args: ["fork", "d703", "--whole", "--json"] },
      /* 9 */ { args: ["checkout", "no-such-entry", "-s", "d703"] },
      /* 10 */ { args: ["label", (ids[5] as string).slice(0, 8), "-s", "d703", "--json"] },
      /* 11 */ { args: ["checkout", "-s", "d703"] },
      /* 12 */ { args: ["tree", "d703"] },
    ]);
  });
  after(() => ws.cleanup());

  it("migrate rewrote the v1 file as v3 and kept the original; label sets a label", () => {
    assert.equal(r[0]?.code, 0, r[0]?.stderr);
    assert.match(r[0]?.stdout ?? "", /Labelled \w+: first attempt/);
    assert.ok(r[0]?.stdout.includes(`session ${ID} · ${path}`), "label says which session it wrote to");
    assert.equal(readJsonl(path)[0]?.version, 3);
    assert.ok(readdirSync(folder).some((name) => name.endsWith(".v1.bak")));
  });

  it("checkout moves the leaf; it survives the process, and pi builds the same context", () => {
    const out = JSON.parse(r[1]?.stdout ?? "");
    assert.equal(out.leafId, ids[100]);
    assert.notEqual(out.previousLeafId, ids[100]);
    const shown = JSON.parse(r[2]?.stdout ?? "");
    assert.equal(shown.leafId, ids[100], "a new process sees the moved leaf");
    const pi = PiSessionManager.open(path).buildSessionContext();
    assert.equal(pi.messages.length, shown.messages.length);
    assert.ok(shown.messages.length < 914);
  });

  it("name sets the session name and prints it", () => {
    assert.equal(JSON.parse(r[3]?.stdout ?? "").name, "Theme port");
    assert.equal(r[4]?.stdout.trim(), "Theme port");
  });

  it("after checkout and a write the tree has two branches, the label shown", () => {
    const tree = JSON.parse(r[5]?.stdout ?? "");
    const target = tree.nodes.find((n: { id: string }) => n.id === ids[100]);
    assert.equal(target.label, "first attempt");
    assert.equal(target.children.length, 2);
    assert.equal(tree.nodes.filter((n: { onPath: boolean }) => !n.onPath).length > 900, true);
    const text = r[12]?.stdout ?? "";
    assert.match(text, /├─ ○/);
    assert.match(text, /└─ ● /);
    assert.match(text, /\[first attempt\]/);
  });

  it("fork copies the leaf's branch; extract --at ends it earlier and files it under another cwd", () => {
    const fork = JSON.parse(r[6]?.stdout ?? "");
    assert.ok(existsSync(fork.path));
    assert.notEqual(fork.sessionId, ID);
    const forked = readJsonl(fork.path);
    assert.equal(forked[0]?.parentSession, path);
    const extracted = JSON.parse(r[7]?.stdout ?? "");
    assert.equal(extracted.cwd, join(ws.dir, "elsewhere"));
    const lines = readJsonl(extracted.path);
    assert.equal(lines.length, 12, "header and 11 entries: root → ids[10]");
    assert.equal(lines[lines.length - 1]?.id, ids[10]);
    const whole = JSON.parse(r[8]?.stdout ?? "");
    assert.ok(whole.entryCount > 1018);
  });

  it("errors: unknown entry is 1, a missing argument is 2; label without text clears", () => {
    assert.equal(r[9]?.code, 1);
    assert.match(r[9]?.stderr ?? "", /\[entry_not_found\]/);
    assert.equal(r[10]?.code, 0);
    assert.equal(JSON.parse(r[10]?.stdout ?? "").label, null);
    assert.equal(r[11]?.code, 2);
    assert.match(r[11]?.stderr ?? "", /missing required argument/);
  });

  it("a session owned by a running agent (writer lease) refuses writes, still reads", () => {
    const lease = WriterLease.acquire(path);
    try {
      const [label, tree] = runScenario(ws.dir, [
        { args: ["label", ids[3] as string, "x", "-s", ID, "--json"] },
        { args: ["tree", ID] },
      ]);
      assert.equal(label?.code, 1);
      assert.equal(JSON.parse(label?.stdout ?? "").error.code, "lease_held");
      assert.equal(tree?.code, 0);
    } finally {
      lease.release();
    }
  });
});
