import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { encodeCwd } from "../../src/file/paths.js";
import { cliEnv, runScenario, tempWorkspace } from "./helpers.js";

// A session whose path holds an entry of every known type with its own fields missing or named
// otherwise (a malformed entry, core/validate.ts): every reading command shows the session, the
// history after those entries included, and none prints a field it did not find.

const ID = "0a000000-0000-7000-8000-00000000000a";
const at = (second: number) => `2026-01-01T00:00:${String(second).padStart(2, "0")}.000Z`;
const user = (text: string) => ({ role: "user", content: [{ type: "text", text }], timestamp: 0 });
const assistant = (text: string) => ({
  role: "assistant",
  content: [{ type: "text", text }],
  provider: "anthropic",
  model: "claude-sonnet-4-5",
  usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { total: 0 } },
  stopReason: "stop",
  timestamp: 0,
});

const MALFORMED: Array<Record<string, unknown>> = [
  { type: "thinking_level_change", thinking_level: "high" },
  { type: "model_change", model: "openai/gpt-5.2" },
  { type: "compaction", tokens_before: 10 },
  { type: "branch_summary", summary: 7 },
  { type: "custom", custom_type: "ext", data: { n: 1 } },
  { type: "custom_message", content: "note" },
  { type: "label", target_id: "u1", label: "start" },
  { type: "session_info", name: 42 },
  { type: "message", message: { content: "no role" } },
  // No timestamp, or one that is not a string (JSON leaves an undefined field out).
  { type: "message", message: user("a question with no time"), timestamp: undefined },
  { type: "thinking_level_change", thinkingLevel: "high", timestamp: 1767225600000 },
];

function sessionText(cwd: string): string {
  const records: Array<Record<string, unknown>> = [
    { type: "session", version: 3, id: ID, timestamp: at(0), cwd },
    {
      type: "message",
      id: "u1",
      parentId: null,
      timestamp: at(1),
      message: user("the question about lanterns"),
    },
    { type: "message", id: "a1", parentId: "u1", timestamp: at(2), message: assistant("an answer") },
  ];
  let parentId = "a1";
  MALFORMED.forEach((record, i) => {
    const id = `m${i}`;
    records.push({ type: record.type, id, parentId, timestamp: at(3 + i), ...record });
    parentId = id;
  });
  records.push({
    type: "message",
    id: "u2",
    parentId,
    timestamp: at(20),
    message: user("after them, the harbour"),
  });
  records.push({
    type: "message",
    id: "a2",
    parentId: "u2",
    timestamp: at(21),
    message: assistant("the last answer"),
  });
  return `${records.map((r) => JSON.stringify(r)).join("\n")}\n`;
}

describe("reading commands on a session with malformed entries", () => {
  const ws = tempWorkspace();
  let path: string;
  before(() => {
    const dir = join(ws.root, "sessions", encodeCwd(ws.dir));
    mkdirSync(dir, { recursive: true });
    path = join(dir, `2026-01-01T00-00-00-000Z_${ID}.jsonl`);
    writeFileSync(path, sessionText(ws.dir));
  });
  after(() => ws.cleanup());

  const run = (...args: string[]) =>
    runScenario(ws.dir, [{ args, env: cliEnv(ws.dir) }])[0] as {
      code: number;
      stdout: string;
      stderr: string;
    };

  it("tree, show, export, stats and search read past them; nothing shows a missing field", () => {
    const outputs = {
      tree: run("tree", ID, "--full"),
      treeJson: run("tree", ID, "--json"),
      show: run("show", ID),
      markdown: run("export", ID, "--format", "md"),
      stats: run("stats", ID),
      search: run("search", "harbour"),
      ls: run("ls"),
    };
    for (const [name, result] of Object.entries(outputs)) {
      assert.equal(result.code, 0, `${name}: ${result.stderr}`);
      assert.doesNotMatch(result.stdout, /undefined|NaN/, `${name} prints no missing field`);
    }
    assert.match(outputs.tree.stdout, /the last answer/);
    assert.match(
      outputs.show.stdout,
      /the question about lanterns[\s\S]*after them, the harbour[\s\S]*the last answer/,
    );
    assert.match(outputs.markdown.stdout, /the last answer/);
    assert.match(outputs.search.stdout, /harbour/);
    assert.match(outputs.treeJson.stdout, /"a2"/);
  });

  it("fsck reports each one as a warning with its line; repair leaves the file as it is", () => {
    const fsck = run("--json", "fsck", path);
    const report = JSON.parse(fsck.stdout) as {
      files: Array<{ ok: boolean; issues: Array<{ code: string; line: number; severity: string }> }>;
    };
    // A finding, not damage: the file is "ok" (nothing of severity error), and fsck says what it found.
    assert.equal(report.files[0]?.ok, true);
    const issues = report.files.flatMap((file) => file.issues);
    assert.deepEqual(
      issues.map((issue) => [issue.code, issue.severity, issue.line]),
      MALFORMED.map((_, i) => ["malformed_entry", "warning", 4 + i]),
    );
    const plain = run("fsck", path);
    assert.equal(plain.code, 1, "a finding is still an exit code");
    assert.match(plain.stdout, /^warn /m, "but warnings alone are not marked as a failure");
    const before = readFileSync(path, "utf8");
    run("repair", path);
    assert.equal(readFileSync(path, "utf8"), before, "nothing to repair: every line is kept as written");
  });
});
