import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { AgentSession, type AgentTool, PermissionPolicy, ScriptedProvider } from "../../src/agent/index.js";
import { globMatch } from "../../src/agent/permissions.js";
import type { ToolResultMessage } from "../../src/core/messages.js";
import { SessionManager } from "../../src/session/session-manager.js";
import { testTools } from "./fixtures/tools.js";

const dir = mkdtempSync(join(tmpdir(), "sessiontree-agent-perm-"));
after(() => rmSync(dir, { recursive: true, force: true }));

function toolResults(manager: SessionManager): ToolResultMessage[] {
  return manager
    .getBranch()
    .flatMap((e) =>
      e.type === "message" && e.message.role === "toolResult" ? [e.message as ToolResultMessage] : [],
    );
}

test("a revoked permission and a removed tool are refused after resume although history shows them allowed", async () => {
  const file = join(dir, "perm.jsonl");
  const first = SessionManager.open(file);
  const before = await AgentSession.open({
    session: first,
    providers: [new ScriptedProvider()],
    tools: testTools(),
  });
  await before.prompt('call echo {"text":"hi"}');
  await before.prompt('call add {"a":1,"b":2}');
  assert.deepEqual(
    toolResults(first).map((r) => [r.toolName, r.isError, r.content[0]]),
    [
      ["echo", false, { type: "text", text: "echo: hi" }],
      ["add", false, { type: "text", text: "3" }],
    ],
  );
  first.close();

  // Today: echo no longer exists, add is denied when a is 1.
  const tools = testTools().filter((t) => t.name !== "echo");
  const permissions = new PermissionPolicy({ rules: [{ tool: "add", args: { a: "1" }, decision: "deny" }] });
  const second = SessionManager.open(file);
  const resumed = await AgentSession.open({
    session: second,
    providers: [new ScriptedProvider()],
    tools,
    permissions,
  });
  const lastEcho = await resumed.prompt('call echo {"text":"again"}');
  const lastAdd = await resumed.prompt('call add {"a":1,"b":2}');
  const allowedAdd = await resumed.prompt('call add {"a":5,"b":2}');
  const results = toolResults(second).slice(2);
  assert.deepEqual(
    results.map((r) => [r.toolName, r.isError]),
    [
      ["echo", true],
      ["add", true],
      ["add", false],
    ],
  );
  assert.match(textOf(results[0]), /not available/);
  assert.match(textOf(results[1]), /Permission denied/);
  assert.equal(textOf(results[2]), "7");
  // The run went on after each refusal: the model answered the error result.
  for (const reply of [lastEcho, lastAdd, allowedAdd]) assert.equal(reply?.stopReason, "stop");
  second.close();
});

test("ask decisions go to the ask callback at call time; without one they are refusals", async () => {
  const asked: string[] = [];
  const policy = (answer: boolean | undefined) =>
    new PermissionPolicy({
      defaultDecision: "ask",
      ask:
        answer === undefined
          ? undefined
          : async (call) => {
              asked.push(call.name);
              return answer;
            },
    });
  for (const [answer, isError] of [
    [true, false],
    [false, true],
    [undefined, true],
  ] as const) {
    const manager = SessionManager.inMemory();
    const agent = await AgentSession.open({
      session: manager,
      providers: [new ScriptedProvider()],
      tools: testTools(),
      permissions: policy(answer),
    });
    await agent.prompt('call add {"a":1,"b":1}');
    assert.equal(toolResults(manager)[0]?.isError, isError);
  }
  assert.deepEqual(asked, ["add", "add"]);
});

test("rules: first match decides, argument patterns are globs, invalid arguments are refused", async () => {
  const policy = new PermissionPolicy({
    rules: [
      { tool: "bash", args: { command: "rm *" }, decision: "deny" },
      { tool: "bash", decision: "allow" },
      { tool: "*", decision: "ask" },
    ],
    defaultDecision: "deny",
  });
  assert.equal(policy.decide({ name: "bash", arguments: { command: "rm -rf /" } }), "deny");
  assert.equal(policy.decide({ name: "bash", arguments: { command: "ls" } }), "allow");
  assert.equal(policy.decide({ name: "edit", arguments: {} }), "ask");
  assert.ok(globMatch("src/*.ts", "src/a.ts"));
  assert.ok(!globMatch("src/?.ts", "src/ab.ts"));

  const manager = SessionManager.inMemory();
  const agent = await AgentSession.open({
    session: manager,
    providers: [new ScriptedProvider()],
    tools: testTools() as AgentTool[],
  });
  await agent.prompt('call add {"a":"one","b":2}');
  const [result] = toolResults(manager);
  assert.equal(result?.isError, true);
  assert.match(textOf(result), /Invalid arguments for add/);
});

function textOf(result: ToolResultMessage | undefined): string {
  const block = result?.content[0];
  return block && block.type === "text" ? block.text : "";
}
