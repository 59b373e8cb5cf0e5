import assert from "node:assert/strict";
import { test } from "node:test";
import { estimateContextTokens } from "../../src/agent/compaction/tokens.js";
import { type AgentEvent, AgentSession, defaultScript, ScriptedProvider } from "../../src/agent/index.js";
import { SessionManager } from "../../src/session/session-manager.js";

const words = (n: number, tag: string) => `${tag} ${"word ".repeat(n)}`;

/** The event types that matter here, in order. */
function watch(agent: AgentSession): string[] {
  const seen: string[] = [];
  agent.subscribe((e: AgentEvent) => {
    if (e.type === "compaction_start")
      seen.push(`start ${e.tokens > 1500 ? "over" : "under"} ${e.contextWindow}`);
    else if (e.type === "compaction_end")
      seen.push(e.error ? `failed: ${e.error}` : `end ${e.entryId ? "written" : "none"}`);
    else if (e.type === "message_end" && e.message.role === "user") seen.push("prompt");
  });
  return seen;
}

test("near the context window the agent compacts before the prompt, and says so", async () => {
  const manager = SessionManager.inMemory();
  const agent = await AgentSession.open({
    session: manager,
    providers: [new ScriptedProvider()],
    contextWindow: (model) => (model.provider === "scripted" ? 2000 : undefined),
    compaction: { keepRecentTokens: 300, reserveTokens: 500 },
  });
  const seen = watch(agent);
  await agent.prompt(words(300, "one"));
  await agent.prompt(words(300, "two"));
  assert.deepEqual(seen, ["prompt", "prompt"], "under the line: no compaction");
  await agent.prompt("three");
  assert.deepEqual(seen.slice(2), ["start over 2000", "end written", "prompt"]);
  const compaction = manager.getBranch().find((e) => e.type === "compaction");
  assert.ok(compaction?.type === "compaction");
  assert.match(compaction.summary, /one word/);
});

test("a failed automatic summary writes nothing, is reported, and the prompt still goes", async () => {
  const manager = SessionManager.inMemory();
  const provider = new ScriptedProvider({
    script: (request, messages) => {
      const last = JSON.stringify(messages.at(-1));
      return last.includes("<conversation>") ? { text: "" } : defaultScript(request, messages);
    },
  });
  const agent = await AgentSession.open({
    session: manager,
    providers: [provider],
    contextWindow: 2000,
    compaction: { keepRecentTokens: 300, reserveTokens: 500 },
  });
  await agent.prompt(words(300, "one"));
  await agent.prompt(words(300, "two"));
  const seen = watch(agent);
  const reply = await agent.prompt("three");
  assert.equal(seen[0], "start over 2000");
  assert.match(seen[1] as string, /^failed: /);
  assert.equal(seen[2], "prompt");
  assert.match(JSON.stringify(reply?.content), /You said: three/);
  assert.equal(manager.getEntries().filter((e) => e.type === "compaction").length, 0);
});

test("over the line with nothing before the kept prompt: no announcement, no summary request", async () => {
  const manager = SessionManager.inMemory();
  const provider = new ScriptedProvider({
    script: (request, messages) =>
      JSON.stringify(messages.at(-1)).includes("huge") ? { text: "ok" } : defaultScript(request, messages),
  });
  const agent = await AgentSession.open({
    session: manager,
    providers: [provider],
    contextWindow: 2000,
    compaction: { keepRecentTokens: 300, reserveTokens: 500 },
  });
  await agent.prompt(words(1300, "huge"));
  assert.ok(estimateContextTokens((await agent.context()).messages) > 1500, "over the line");
  const seen = watch(agent);
  await agent.prompt("next");
  assert.deepEqual(seen, ["prompt"]);
});
