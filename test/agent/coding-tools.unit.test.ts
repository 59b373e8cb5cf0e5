import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { type AgentTool, codingTools, type ToolOutput } from "../../src/agent/index.js";

const dir = mkdtempSync(join(tmpdir(), "sessiontree-coding-tools-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const tools = codingTools(dir, { bash: { maxOutputChars: 2000 } });
const tool = (name: string) => tools.find((t) => t.name === name) as AgentTool;

async function run(name: string, args: unknown, signal = new AbortController().signal): Promise<ToolOutput> {
  return tool(name).execute(args as never, { toolCallId: "t", signal, onProgress: () => undefined });
}
const text = (output: ToolOutput) => String(output.content);

describe("the file tools", () => {
  test("write makes folders; read reads lines; ls lists; a path outside the folder is refused", async () => {
    assert.match(
      text(await run("write", { path: "src/a.txt", content: "one\ntwo\nthree\n" })),
      /Wrote 14 bytes/,
    );
    assert.equal(text(await run("read", { path: "src/a.txt", offset: 2, limit: 1 })), "two");
    assert.equal(text(await run("ls", { path: "." })), "src/");
    await assert.rejects(run("read", { path: "../outside" }), { code: "invalid_argument" });
    await assert.rejects(run("write", { path: "/etc/x", content: "" }), { code: "invalid_argument" });
  });

  test("edit replaces one exact text and refuses a missing or an ambiguous one, changing nothing", async () => {
    writeFileSync(join(dir, "b.ts"), "let a = 1;\nlet b = 1;\n");
    await assert.rejects(run("edit", { path: "b.ts", oldText: "= 1;", newText: "= 2;" }), /occurs 2 times/);
    await assert.rejects(run("edit", { path: "b.ts", oldText: "let c", newText: "x" }), /is not in b\.ts/);
    assert.equal(readFileSync(join(dir, "b.ts"), "utf8"), "let a = 1;\nlet b = 1;\n");
    assert.equal(
      text(await run("edit", { path: "b.ts", oldText: "b = 1", newText: "b = 2" })),
      "Edited b.ts at line 2",
    );
    assert.equal(readFileSync(join(dir, "b.ts"), "utf8"), "let a = 1;\nlet b = 2;\n");
  });

  test("grep and find search under the folder, skipping .git and node_modules", async () => {
    mkdirSync(join(dir, "node_modules", "x"), { recursive: true });
    writeFileSync(join(dir, "node_modules", "x", "c.ts"), "let b = 9;\n");
    assert.equal(text(await run("grep", { pattern: "b = \\d", glob: "*.ts" })), "b.ts:2: let b = 2;");
    assert.equal(text(await run("grep", { pattern: "LET A", ignoreCase: true })), "b.ts:1: let a = 1;");
    assert.equal(text(await run("find", { pattern: "*.txt" })), "src/a.txt");
    await assert.rejects(run("grep", { pattern: "(" }), { code: "invalid_argument" });
  });
});

describe("bash", () => {
  test("output and exit code; a failing command is an error result", async () => {
    const ok = await run("bash", { command: "echo out; echo err >&2" });
    assert.equal(text(ok), "out\nerr\n");
    assert.equal(ok.isError, false);
    const failed = await run("bash", { command: "echo no; exit 3" });
    assert.equal(failed.isError, true);
    assert.match(text(failed), /no\n\n\[exit code 3\]/);
  });

  test("output beyond the cap keeps its end", async () => {
    const output = text(await run("bash", { command: "seq 1 2000" }));
    assert.match(output, /^\[… \d+ earlier characters cut\]\n/);
    assert.match(output, /\n2000\n$/);
  });

  test("a timeout stops the command and its children", async () => {
    const started = Date.now();
    const output = await run("bash", { command: "sleep 41 & sleep 41; echo never", timeout: 1 });
    assert.ok(Date.now() - started < 5000);
    assert.equal(output.isError, true);
    assert.match(text(output), /timed out after 1s/);
    assert.equal(spawnSync("pgrep", ["-f", "sleep 41"]).status, 1, "no child left running");
  });

  test("an abort stops the command at once, its process group included", async () => {
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 300);
    await assert.rejects(run("bash", { command: "sleep 43 & sleep 43" }, controller.signal), /aborted/);
    assert.ok(Date.now() - started < 5000);
    assert.equal(spawnSync("pgrep", ["-f", "sleep 43"]).status, 1, "no child left running");
  });
});
