/**
 * A Claude Code subagent's lines, imported as `claude-code.sidechain` custom entries, read as what
 * they are: the subagent's name (the `subagent_type` of the Task call that started it, else the
 * agent id the records carry) and its text, tool calls and results — in describe.ts (the CLI's
 * tree, the Markdown export) and in the viewer's rows and entry panel.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { SessionEntry } from "../../src/core/entry.js";
import { importClaudeCode } from "../../src/format/claude-code.js";
import { describeEntry, subagentNames } from "../../src/format/describe.js";
import { entryLine } from "../../src/viewer/browser/entry-line.js";
import { buildModel, indexOfId, nodeText } from "../../src/viewer/browser/model.js";
import { claudeSubagentLines, line, PROMPT_A, PROMPT_B, side } from "./support/claude-subagents.js";

function entries(): SessionEntry[] {
  return importClaudeCode(claudeSubagentLines().join("\n")).entries;
}

function byId(all: SessionEntry[], id: string): SessionEntry {
  const entry = all.find((e) => e.id === id);
  assert.ok(entry, `entry ${id}`);
  return entry;
}

describe("Claude Code sidechains described", () => {
  it("each sidechain line gets the subagent type of the call that started it", () => {
    const all = entries();
    const names = subagentNames(all);
    assert.deepEqual(
      ["sa1", "sa2", "sa3", "sa4", "sb1", "sb2"].map((id) => names.get(id)),
      ["Explore", "Explore", "Explore", "Explore", "general-purpose", "general-purpose"],
    );
    assert.equal(names.has("u1"), false, "only sidechains are named");
  });

  it("says the subagent, the role and the content: text, tool calls, results, thinking", () => {
    const all = entries();
    const names = subagentNames(all);
    const say = (id: string) => describeEntry(byId(all, id), { subagent: names.get(id) });
    assert.deepEqual(say("sa1"), {
      kind: "custom",
      tag: "sub:Explore",
      title: "Subagent Explore · user",
      text: PROMPT_A,
    });
    assert.equal(say("sa2").text, "→ Grep");
    assert.equal(say("sa3").text, "✓ 3 matches");
    assert.equal(say("sa4").text, "Found 3 sleep calls.");
    assert.equal(say("sb2").text, "(thinking)");
  });

  it("without the session around it, a record's own agent id names it", () => {
    const record = line("x1", null, "assistant", [{ type: "text", text: "hi" }], {
      ...side,
      agentId: "a9f4657",
    });
    const entry = {
      type: "custom",
      id: "x1",
      parentId: null,
      timestamp: record.timestamp,
      customType: "claude-code.sidechain",
      data: record,
    } as SessionEntry;
    assert.deepEqual(describeEntry(entry), {
      kind: "custom",
      tag: "sub:a9f4657",
      title: "Subagent a9f4657 · assistant",
      text: "hi",
    });
    assert.equal(describeEntry({ ...entry, data: { message: "odd" } } as SessionEntry).tag, "subagent");
  });

  it("the viewer's rows show the subagent and its text, not just the custom type", () => {
    const all = entries();
    const model = buildModel({ entries: all, leafId: "u2" });
    const row = (id: string) => nodeText(model, indexOfId(model, id) as number);
    assert.equal(row("sa4"), "Subagent Explore · assistant: Found 3 sleep calls.");
    assert.equal(row("sa2"), "Subagent Explore · assistant: → Grep");
    assert.equal(row("sb1"), `Subagent general-purpose · user: ${PROMPT_B}`);
    // Other extension entries keep their words.
    const other = { ...byId(all, "sa1"), customType: "my.ext", data: { summary: "s" } } as SessionEntry;
    assert.equal(entryLine(other).text, "Extension state: my.ext: s");
  });
});

describe("Claude Code sidechains in the CLI's tree and the Markdown export", () => {
  it("name the subagent from the Task call, not just the agent id", async () => {
    const { SessionTree } = await import("../../src/core/tree.js");
    const { renderTree } = await import("../../src/cli/render/tree.js");
    const { exportMarkdown } = await import("../../src/format/export-markdown.js");
    const all = entries();
    const tree = new SessionTree();
    for (const entry of all) tree.load(entry);
    const lines = renderTree(tree.getTree(), {
      leafId: "sa4",
      colors: new Proxy({}, { get: () => (text: string) => text }) as never,
      width: 200,
      collapseOver: 0,
      subagents: subagentNames(all),
    });
    const row = lines.find((text) => text.includes(" sa1 "));
    assert.match(row ?? "", /Explore/, row);
    const path = tree.getBranch("sa4");
    const markdown = exportMarkdown({
      header: { type: "session", version: 3, id: "s", timestamp: "t", cwd: "/" },
      path,
    } as never);
    assert.match(markdown, /Subagent Explore/);
  });
});
