import assert from "node:assert/strict";
import { describe, it } from "node:test";
import pc from "picocolors";
import { renderContext } from "../../src/cli/render/context.js";
import type { ProjectedContext } from "../../src/core/context.js";

const plain = pc.createColors(false);
const colours = pc.createColors(true);

const messages = [
  { role: "user", content: [{ type: "text", text: "one" }] },
  { role: "assistant", model: "m1", content: [{ type: "text", text: "a" }] },
  { role: "toolResult", toolName: "read", content: [{ type: "text", text: "r1" }] },
  { role: "toolResult", toolName: "read", isError: true, content: [{ type: "text", text: "r2" }] },
  { role: "assistant", model: "m2", content: [{ type: "text", text: "b" }] },
  { role: "assistant", content: [{ type: "text", text: "c" }] },
  {
    role: "toolResult",
    toolName: "bash",
    content: [
      { type: "text", text: "x" },
      { type: "text", text: "y" },
    ],
  },
  {
    role: "user",
    content: [{ type: "text", text: "two" }, { type: "image" }, { type: "text", text: "parts" }],
  },
  { role: "assistant", model: "m1", content: [] },
  { role: "user", content: "plain\u001b[2J" },
  { role: "toolResult", toolName: "read", content: [{ type: "text", text: "r3" }] },
];

const context = {
  messages,
  messageEntryIds: messages.map((_, i) => `e${i}`),
} as unknown as ProjectedContext;

describe("show's transcript: each message's title and text", () => {
  it("titles each message by its own role, model and tool, however many share them", () => {
    const lines = renderContext(context, { colors: plain, width: 80, maxLines: 12 });
    assert.deepEqual(lines, [
      "── user e0",
      "one",
      "",
      "── assistant m1 e1",
      "a",
      "",
      "── tool result read e2",
      "r1",
      "",
      "── tool result read (error) e3",
      "r2",
      "",
      "── assistant m2 e4",
      "b",
      "",
      "── assistant e5",
      "c",
      "",
      "── tool result bash e6",
      "x y",
      "",
      "── user e7",
      "two parts",
      "",
      "── assistant m1 e8",
      "(empty)",
      "",
      "── user e9",
      "plain\\u001b[2J",
      "",
      "── tool result read e10",
      "r3",
      "",
    ]);
  });

  it("colours each title as it did for a single message", () => {
    const lines = renderContext(context, { colors: colours, width: 80, maxLines: 12 });
    for (const [i, message] of messages.entries()) {
      const alone = renderContext(
        { messages: [message], messageEntryIds: [`e${i}`] } as unknown as ProjectedContext,
        { colors: colours, width: 80, maxLines: 12 },
      );
      assert.ok(lines.includes(alone[0] as string), `message ${i}: ${JSON.stringify(alone[0])}`);
    }
  });

  it("pushes onto the array it is given, after what it holds", () => {
    const into = ["header", ""];
    const lines = renderContext(context, { colors: plain, width: 80, maxLines: 12 }, into);
    assert.equal(lines, into);
    assert.deepEqual(into.slice(0, 3), ["header", "", "── user e0"]);
  });
});
