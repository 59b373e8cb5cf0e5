import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import {
  SessionManager as PiSessionManager,
  buildSessionContext as piBuildSessionContext,
} from "@mariozechner/pi-coding-agent";
import { findCutPoint, splitsToolPair } from "../../src/agent/compaction/cut-point.js";
import { prepareCompaction } from "../../src/agent/compaction/prepare.js";
import { AgentSession, ScriptedProvider } from "../../src/agent/index.js";
import { projectContext } from "../../src/core/context.js";
import type { CompactionEntry, SessionEntry } from "../../src/core/entry.js";
import type { AgentMessage, AssistantMessage, ToolResultMessage } from "../../src/core/messages.js";
import { SessionManager } from "../../src/session/session-manager.js";
import { Random } from "../support/random.js";
import { testTools } from "./fixtures/tools.js";

const dir = mkdtempSync(join(tmpdir(), "sessiontree-agent-compact-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A path of turns with single and parallel tool calls, text sizes varying by a seeded generator. */
function randomPath(seed: number, turns: number): SessionEntry[] {
  const rng = new Random(seed);
  const manager = SessionManager.inMemory();
  for (let t = 0; t < turns; t++) {
    manager.appendMessage({ role: "user", content: `u${t} ${"x".repeat(rng.int(400))}`, timestamp: t });
    for (let step = rng.int(3); step > 0; step--) {
      const ids = Array.from({ length: 1 + rng.int(3) }, (_, i) => `c${t}_${step}_${i}`);
      const calls = ids.map((id) => ({
        type: "toolCall" as const,
        id,
        name: "read",
        arguments: { n: rng.int(9) },
      }));
      manager.appendMessage({
        role: "assistant",
        content: calls,
        provider: "p",
        model: "m",
        stopReason: "toolUse",
        timestamp: t,
      });
      for (const id of ids) {
        const text = "r".repeat(rng.int(800));
        manager.appendMessage({
          role: "toolResult",
          toolCallId: id,
          toolName: "read",
          content: [{ type: "text", text }],
          isError: false,
          timestamp: t,
        });
      }
    }
    manager.appendMessage({
      role: "assistant",
      content: [{ type: "text", text: `a${t}` }],
      provider: "p",
      model: "m",
      stopReason: "stop",
      timestamp: t,
    });
  }
  return manager.getBranch();
}

/** Every tool result in the projected context follows its call, in the same context. */
function assertPairsIntact(messages: AgentMessage[]): void {
  const calls = new Set<string>();
  for (const m of messages) {
    if (m.role === "assistant")
      for (const b of (m as AssistantMessage).content) if (b.type === "toolCall") calls.add(b.id);
    if (m.role === "toolResult")
      assert.ok(calls.has((m as ToolResultMessage).toolCallId), "a kept tool result lost its call");
  }
}

describe("compaction cut points", () => {
  test("never split a tool call from its result (200 random paths × budgets)", () => {
    for (let seed = 1; seed <= 200; seed++) {
      const path = randomPath(seed, 6);
      for (const budget of [1, 50, 200, 600, 2000]) {
        const cut = findCutPoint(path, 0, path.length, budget);
        assert.equal(splitsToolPair(path, cut.firstKeptIndex), false, `seed ${seed} budget ${budget}`);
        const kept = path[cut.firstKeptIndex] as SessionEntry;
        assert.ok(!(kept.type === "message" && kept.message.role === "toolResult"));
      }
    }
  });

  test("a late tool result (after a user message) pulls the cut back to its call", () => {
    const manager = SessionManager.inMemory();
    manager.appendMessage({ role: "user", content: "start", timestamp: 1 });
    const call = { type: "toolCall" as const, id: "late", name: "read", arguments: {} };
    manager.appendMessage({
      role: "assistant",
      content: [call],
      provider: "p",
      model: "m",
      stopReason: "toolUse",
      timestamp: 2,
    });
    manager.appendMessage({ role: "user", content: "y".repeat(400), timestamp: 3 });
    manager.appendMessage({
      role: "toolResult",
      toolCallId: "late",
      toolName: "read",
      content: [{ type: "text", text: "late" }],
      isError: false,
      timestamp: 4,
    });
    const path = manager.getBranch();
    assert.equal(splitsToolPair(path, 2), true);
    const cut = findCutPoint(path, 0, path.length, 50);
    assert.equal(cut.firstKeptIndex, 1);
  });
});

describe("compaction through AgentSession", () => {
  async function buildSession(manager: SessionManager, prompts: string[]): Promise<AgentSession> {
    const agent = await AgentSession.open({
      session: manager,
      providers: [new ScriptedProvider()],
      tools: testTools(),
    });
    for (const p of prompts) await agent.prompt(p);
    return agent;
  }

  test("two compactions in a row lose nothing they should keep; pi 0.73.1 builds the same context", async () => {
    const file = join(dir, "compact.jsonl");
    const manager = SessionManager.open(file);
    const round1 = Array.from({ length: 6 }, (_, i) =>
      i % 2 ? `call echo {"text":"r1-${i}"}` : `topic r1-${i} ${"w".repeat(300)}`,
    );
    const agent = await buildSession(manager, round1);
    const first = await agent.compact({ keepRecentTokens: 250 });
    assert.ok(first);
    const c1 = manager.getEntry(first) as CompactionEntry;
    const path1 = manager.getBranch();
    const kept1 = path1.slice(
      path1.findIndex((e) => e.id === c1.firstKeptEntryId),
      -1,
    );
    assert.ok(kept1.length > 0);
    assertPairsIntact(projectContext(path1).messages);

    const round2 = Array.from({ length: 4 }, (_, i) =>
      i % 2 ? `call add {"a":${i},"b":1}` : `topic r2-${i} ${"v".repeat(300)}`,
    );
    for (const p of round2) await agent.prompt(p);
    // The plan for the second compaction starts at what the first one kept (pi #2608).
    const plan = prepareCompaction(manager.getBranch(), { keepRecentTokens: 250, reserveTokens: 1000 });
    const keptUserTexts = kept1.flatMap((e) =>
      e.type === "message" && e.message.role === "user" ? [textOf(e.message as AgentMessage)] : [],
    );
    const planned = plan?.toSummarize.map((m) => textOf(m)) ?? [];
    for (const text of keptUserTexts)
      assert.ok(planned.includes(text) || isStillKept(manager, text), `lost: ${text.slice(0, 20)}`);

    const second = await agent.compact({ keepRecentTokens: 250 });
    assert.ok(second);
    const c2 = manager.getEntry(second) as CompactionEntry;
    // The second summary is built on the first one and on what the first one kept.
    assert.ok(c2.summary.includes(c1.summary.split("\n")[1] as string));
    const context = projectContext(manager.getBranch());
    assertPairsIntact(context.messages);
    const visible = context.messages
      .map((m) => (m.role === "compactionSummary" ? (m as { summary: string }).summary : textOf(m)))
      .join("\n");
    for (const prompt of [...round1, ...round2])
      assert.ok(visible.includes(prompt.slice(0, 40)), `lost: ${prompt.slice(0, 40)}`);

    // pi 0.73.1 reads our file and builds the same context.
    manager.close();
    const pi = PiSessionManager.open(file);
    const ours = SessionManager.open(file);
    assert.deepEqual(pi.buildSessionContext().messages, projectContext(ours.getBranch()).messages);
    assert.deepEqual(pi.buildSessionContext().messages, ours.buildSessionContext().messages);
    ours.close();

    // And the agent resumed on the compacted file asks the model with the summary first.
    const bodies: string[] = [];
    const reopened = SessionManager.open(file);
    const resumed = await AgentSession.open({
      session: reopened,
      providers: [new ScriptedProvider({ onRequest: (b) => bodies.push(b) })],
    });
    await resumed.prompt("after compaction");
    const sent = JSON.parse(bodies[0] as string) as { messages: Array<{ role: string; content: string }> };
    assert.match(
      sent.messages[0]?.content ?? "",
      /^The conversation history before this point was compacted/,
    );
    reopened.close();
  });
});

describe("automatic compaction", () => {
  test("a prompt compacts first when the context nears the window, keeping tool pairs whole", async () => {
    const manager = SessionManager.inMemory();
    const agent = await AgentSession.open({
      session: manager,
      providers: [new ScriptedProvider()],
      tools: testTools(),
      contextWindow: 1200,
      compaction: { reserveTokens: 400, keepRecentTokens: 200 },
    });
    for (let i = 0; i < 8; i++)
      await agent.prompt(i % 2 ? `call echo {"text":"t${i}"}` : `question ${i} ${"q".repeat(500)}`);
    const compactions = manager.getBranch().filter((e) => e.type === "compaction");
    assert.ok(compactions.length >= 1);
    const context = projectContext(manager.getBranch());
    assert.equal(context.messages[0]?.role, "compactionSummary");
    assertPairsIntact(context.messages);
    assert.deepEqual(
      // pi 0.73.1 agrees on the in-memory path too.
      piBuildSessionContext(manager.getEntries() as never, manager.getLeafId()).messages,
      context.messages,
    );
  });
});

function textOf(message: AgentMessage): string {
  const content = (message as { content?: unknown }).content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((b: { type: string; text?: string }) => (b.type === "text" ? b.text : "")).join("");
}

function isStillKept(manager: SessionManager, text: string): boolean {
  return projectContext(manager.getBranch()).messages.some(
    (m) => m.role !== "compactionSummary" && textOf(m) === text,
  );
}
