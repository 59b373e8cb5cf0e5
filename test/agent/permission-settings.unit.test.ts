import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import {
  AgentSession,
  loadPermissionSettings,
  PermissionPolicy,
  parseRuleSpec,
  ScriptedProvider,
} from "../../src/agent/index.js";
import { normalizeForRules } from "../../src/cli/chat/permission-prompt.js";
import type { ToolCallContent, ToolResultMessage } from "../../src/core/messages.js";
import { SessionManager } from "../../src/session/session-manager.js";
import { testTools } from "./fixtures/tools.js";

const dir = mkdtempSync(join(tmpdir(), "sessiontree-perm-settings-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const call = (name: string, args: Record<string, unknown> = {}): ToolCallContent => ({
  type: "toolCall",
  id: "c",
  name,
  arguments: args,
});

function folders(name: string, user: unknown, project: unknown) {
  const userDir = join(dir, name, "user");
  const cwd = join(dir, name, "project");
  mkdirSync(join(cwd, ".sessiontree"), { recursive: true });
  mkdirSync(userDir, { recursive: true });
  if (user !== undefined) writeFileSync(join(userDir, "settings.json"), JSON.stringify(user));
  if (project !== undefined)
    writeFileSync(join(cwd, ".sessiontree", "settings.json"), JSON.stringify(project));
  return { userDir, cwd };
}

describe("permission settings", () => {
  test("rule specs: a tool, a glob on its main argument, a named argument for other tools", () => {
    assert.deepEqual(parseRuleSpec("bash(git *)", "allow", "f"), {
      tool: "bash",
      args: { command: "git *" },
      decision: "allow",
      source: "f",
      text: "bash(git *)",
    });
    assert.deepEqual(parseRuleSpec("deploy(target=prod*)", "ask", "f").args, { target: "prod*" });
    assert.throws(() => parseRuleSpec("deploy(prod*)", "ask", "f"), { code: "invalid_argument" });
    assert.throws(() => parseRuleSpec("bad rule(", "ask", "f"), { code: "invalid_argument" });
  });

  test("flags over the project over the user over the built-in rules; the project's default wins", () => {
    const sources = folders(
      "order",
      { permissions: { allow: ["bash"], deny: ["write"], default: "allow" } },
      {
        permissions: {
          deny: ["bash(rm *)"],
          ask: ["bash(git push*)"],
          allow: ["write(notes/*)"],
          default: "deny",
        },
      },
    );
    const policy = new PermissionPolicy(
      loadPermissionSettings({ ...sources, deny: ["bash(git push --force*)"] }),
    );
    const decide = (name: string, args: Record<string, unknown>) => policy.decide(call(name, args));
    assert.equal(decide("bash", { command: "rm -rf x" }), "deny", "project");
    assert.equal(decide("bash", { command: "git push --force" }), "deny", "flag");
    assert.equal(decide("bash", { command: "git push" }), "ask", "project");
    assert.equal(decide("bash", { command: "ls" }), "allow", "user");
    assert.equal(decide("write", { path: "notes/a.md" }), "allow", "project");
    assert.equal(decide("write", { path: "src/a.ts" }), "deny", "user");
    assert.equal(decide("read", { path: "a" }), "allow", "built-in");
    assert.equal(decide("edit", { path: "a" }), "deny", "the project's default");
  });

  test("no files: read-only tools allowed, the rest asked", () => {
    const policy = new PermissionPolicy(loadPermissionSettings(folders("none", undefined, undefined)));
    assert.deepEqual(
      ["read", "ls", "grep", "find", "write", "edit", "bash"].map((t) => policy.decide(call(t))),
      ["allow", "allow", "allow", "allow", "ask", "ask", "ask"],
    );
  });

  test("a settings file that does not parse is an error naming it, never skipped", () => {
    const sources = folders("broken", undefined, undefined);
    writeFileSync(join(sources.cwd, ".sessiontree", "settings.json"), "{ not json");
    assert.throws(
      () => loadPermissionSettings(sources),
      (e: Error & { code?: string }) => {
        return e.code === "invalid_argument" && e.message.includes(join(".sessiontree", "settings.json"));
      },
    );
    writeFileSync(join(sources.cwd, ".sessiontree", "settings.json"), '{"permissions":{"allow":"bash"}}');
    assert.throws(() => loadPermissionSettings(sources), /"allow" is not an array/);
  });

  test("paths are matched in one form: ./src/../src/a.ts cannot slip past a rule on src/*", () => {
    const cwd = join(dir, "norm");
    const policy = new PermissionPolicy({
      rules: [parseRuleSpec("write(src/*)", "deny", "test")],
      normalize: normalizeForRules(cwd),
    });
    assert.equal(policy.decide(call("write", { path: "./src/../src/a.ts" })), "deny");
    assert.equal(policy.decide(call("write", { path: join(cwd, "src", "a.ts") })), "deny");
    assert.equal(policy.decide(call("write", { path: "docs/a.md" })), "allow");
  });
});

describe("refusals in the tree, and asking", () => {
  const results = (manager: SessionManager) =>
    manager
      .getBranch()
      .flatMap((e) =>
        e.type === "message" && e.message.role === "toolResult" ? [e.message as ToolResultMessage] : [],
      );

  test("a refusal is the call's error result, with the rule that refused and where it came from", async () => {
    const manager = SessionManager.inMemory();
    const agent = await AgentSession.open({
      session: manager,
      providers: [new ScriptedProvider()],
      tools: testTools(),
      permissions: new PermissionPolicy({ rules: [parseRuleSpec("echo", "deny", "user-settings.json")] }),
    });
    await agent.prompt('call echo {"text":"hi"}');
    const [refused] = results(manager);
    assert.equal(refused?.isError, true);
    assert.match(
      String(refused?.content[0] && "text" in refused.content[0] ? refused.content[0].text : ""),
      /^Permission denied: echo is refused by rule "deny echo" from user-settings\.json$/,
    );
    assert.deepEqual(refused?.details, {
      refused: "permission",
      rule: { tool: "echo", decision: "deny", source: "user-settings.json", text: "echo" },
    });
  });

  test("ask: no refuses, yes allows once, always allows the tool until the policy ends", async () => {
    const answers: Array<boolean | "always"> = [false, true, "always"];
    const asked: string[] = [];
    const permissions = new PermissionPolicy({
      defaultDecision: "ask",
      ask: async (c) => {
        asked.push(JSON.stringify(c.arguments));
        return answers.shift() ?? false;
      },
    });
    const manager = SessionManager.inMemory();
    const agent = await AgentSession.open({
      session: manager,
      providers: [new ScriptedProvider()],
      tools: testTools(),
      permissions,
    });
    for (const n of [1, 2, 3, 4, 5]) await agent.prompt(`call echo {"text":"${n}"}`);
    assert.deepEqual(asked, ['{"text":"1"}', '{"text":"2"}', '{"text":"3"}']);
    assert.deepEqual(
      results(manager).map((r) => r.isError),
      [true, false, false, false, false],
    );
    assert.match(
      JSON.stringify(results(manager)[0]?.content),
      /needs approval \(asked by the default decision\); the user said no/,
    );
  });
});
