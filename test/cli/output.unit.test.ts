import assert from "node:assert/strict";
import { describe, it } from "node:test";
import pc from "picocolors";
import { snippetAround } from "../../src/cli/commands/ls-entries.js";
import { colorEnabled } from "../../src/cli/io.js";
import { renderContext } from "../../src/cli/render/context.js";
import { renderTree, treeText } from "../../src/cli/render/tree.js";
import { byListingOrder } from "../../src/cli/resolve.js";
import type { ProjectedContext } from "../../src/core/context.js";
import type { SessionEntry } from "../../src/core/entry.js";
import { exportMarkdown } from "../../src/format/export-markdown.js";

const plain = pc.createColors(false);

const thinkingReply = {
  role: "assistant",
  content: [
    { type: "thinking", thinking: "The user wants a fix.\nCheck the parser first." },
    { type: "text", text: "Fixed the parser." },
  ],
  provider: "p",
  model: "m",
  stopReason: "stop",
};

const onlyThinking: SessionEntry = {
  type: "message",
  id: "a1",
  parentId: null,
  timestamp: "2025-01-01T00:00:00.000Z",
  message: {
    role: "assistant",
    content: [
      { type: "thinking", thinking: "I should read the file" },
      { type: "toolCall", id: "c", name: "read", arguments: {} },
    ],
    provider: "p",
    model: "m",
  },
} as SessionEntry;

describe("colours: FORCE_COLOR, NO_COLOR, terminals", () => {
  it("follows the documented precedence", () => {
    const cases: Array<[Record<string, string>, boolean, boolean]> = [
      [{}, true, true],
      [{}, false, false],
      [{ TERM: "dumb" }, true, false],
      [{ NO_COLOR: "1" }, true, false],
      [{ NO_COLOR: "" }, true, true], // no-color.org: set and non-empty
      [{ FORCE_COLOR: "1" }, false, true],
      [{ FORCE_COLOR: "" }, false, true],
      [{ FORCE_COLOR: "3" }, false, true],
      [{ FORCE_COLOR: "true" }, false, true],
      [{ FORCE_COLOR: "0" }, true, false],
      [{ FORCE_COLOR: "false" }, true, false],
      [{ FORCE_COLOR: "1", NO_COLOR: "1" }, false, true], // FORCE_COLOR decides when set, as in Node
      [{ FORCE_COLOR: "0", NO_COLOR: "" }, true, false],
    ];
    for (const [env, tty, expected] of cases)
      assert.equal(colorEnabled(env, tty), expected, `${JSON.stringify(env)} tty=${tty}`);
  });
});

describe("thinking is marked in words, not only by colour", () => {
  it("show: a [thinking] block with each line behind a bar, then the reply", () => {
    const context = {
      messages: [thinkingReply],
      messageEntryIds: ["a1"],
    } as unknown as ProjectedContext;
    const lines = renderContext(context, { colors: plain, width: 80, maxLines: 0 });
    assert.deepEqual(lines.slice(1, 5), [
      "[thinking]",
      "│ The user wants a fix.",
      "│ Check the parser first.",
      "Fixed the parser.",
    ]);
  });

  it("show: a redacted block says so instead of printing its payload", () => {
    const context = {
      messages: [{ ...thinkingReply, content: [{ type: "thinking", thinking: "", redacted: true }] }],
      messageEntryIds: ["a1"],
    } as unknown as ProjectedContext;
    assert.equal(
      renderContext(context, { colors: plain, width: 80, maxLines: 0 })[1],
      "[thinking, redacted]",
    );
  });

  it("tree: a reply that is only thinking shows it after `thinking:`", () => {
    assert.equal(treeText(onlyThinking), "→ read · thinking: I should read the file");
    const [line] = renderTree([{ entry: onlyThinking, children: [] }], {
      leafId: "a1",
      colors: plain,
      width: 120,
      collapseOver: 0,
    });
    assert.match(line ?? "", /asst → read · thinking: I should read the file/);
  });

  it("Markdown export: a folded Thinking section, quoted, that the model's text cannot close", () => {
    const md = exportMarkdown({
      header: { type: "session", version: 3, id: "s", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/x" },
      path: [
        {
          ...onlyThinking,
          message: {
            ...thinkingReply,
            content: [
              { type: "thinking", thinking: "step one\n</details> sneaky" },
              thinkingReply.content[1],
            ],
          },
        } as SessionEntry,
      ],
    });
    assert.ok(
      md.includes(
        "<details>\n<summary>Thinking</summary>\n\n> step one\n> &lt;/details> sneaky\n\n</details>\n\nFixed the parser.",
      ),
      md,
    );
  });
});

describe("ls helpers", () => {
  it("byListingOrder: newest activity first, then the later file name", () => {
    const at = (iso: string, path: string) => ({ modified: new Date(iso), path });
    const sorted = [
      at("2025-01-01T00:00:00Z", "/s/2025-01-01_a.jsonl"),
      at("2025-03-01T00:00:00Z", "/s/2025-01-02_b.jsonl"),
      at("2025-03-01T00:00:00Z", "/s/2025-02-01_c.jsonl"),
    ].sort(byListingOrder);
    assert.deepEqual(
      sorted.map((s) => s.path),
      ["/s/2025-02-01_c.jsonl", "/s/2025-01-02_b.jsonl", "/s/2025-01-01_a.jsonl"],
    );
  });

  it("snippetAround: whitespace folded, a word boundary before, the match located", () => {
    const text = `${"word ".repeat(20)}the\nNeedle is here${" tail".repeat(40)}`;
    const found = snippetAround(text, "needle");
    assert.ok(found);
    assert.equal(found.snippet.slice(found.matchStart, found.matchStart + found.matchLength), "Needle");
    assert.match(found.snippet, /^…word .* the Needle is here tail/);
    assert.ok(found.snippet.endsWith("…"));
    assert.equal(snippetAround("nothing here", "needle"), null);
  });
});
