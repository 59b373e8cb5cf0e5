import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { type Key, KeyParser } from "../../src/cli/chat/keys.js";
import { LineEditor } from "../../src/cli/chat/line-editor.js";
import { MarkdownStream, renderMarkdown } from "../../src/cli/chat/markdown.js";
import { shownAsTyped } from "../../src/cli/chat/terminal-input.js";

// NO_COLOR is not set here: colour codes are stripped to compare what a colourless terminal shows.
// biome-ignore lint/suspicious/noControlCharactersInRegex: colour codes are what is removed.
const plain = (text: string) => text.replace(/\x1b\[[0-9;]*m/g, "");

describe("keys from a terminal in raw mode", () => {
  test("a bracketed paste is one paste key, newlines kept, even split across chunks and markers", () => {
    const parser = new KeyParser();
    const keys: Key[] = [
      ...parser.push("ab\x1b[20"),
      ...parser.push("0~line one\r\nline"),
      ...parser.push(" two\rthree\x1b[2"),
      ...parser.push("01~\r"),
    ];
    assert.deepEqual(keys, [
      { kind: "text", text: "ab" },
      { kind: "paste", text: "line one\nline two\nthree" },
      { kind: "key", name: "enter" },
    ]);
  });

  test("control keys and arrows; unknown escape sequences are dropped, never typed", () => {
    const keys = new KeyParser().push("x\x03\x04\x7f\x1b[D\x1b[C\x1b[A\x1b[15~\x15y");
    assert.deepEqual(
      keys.map((k) => (k.kind === "key" ? k.name : k.text)),
      ["x", "ctrl-c", "ctrl-d", "backspace", "left", "right", "up", "ctrl-u", "y"],
    );
  });
});

describe("the line editor", () => {
  test("editing, a paste with newlines, submit and history", () => {
    const editor = new LineEditor();
    const apply = (...keys: Key[]) => keys.map((k) => editor.apply(k));
    apply({ kind: "text", text: "helo" }, { kind: "key", name: "left" }, { kind: "text", text: "l" });
    assert.equal(editor.text, "hello");
    apply({ kind: "key", name: "end" }, { kind: "paste", text: "\nworld" });
    assert.deepEqual(editor.view(80), { text: "hello↵world", column: 11 });
    assert.deepEqual(apply({ kind: "key", name: "enter" }), ["submit"]);
    assert.equal(editor.take(), "hello\nworld");
    assert.equal(editor.text, "");
    apply({ kind: "key", name: "up" });
    assert.equal(editor.text, "hello\nworld");
    apply({ kind: "key", name: "ctrl-w" });
    assert.equal(editor.text, "hello\n");
    assert.deepEqual(apply({ kind: "key", name: "ctrl-c" }), ["interrupt"]);
    editor.clear();
    assert.deepEqual(apply({ kind: "key", name: "ctrl-d" }), ["eof"]);
  });

  test("a line longer than the terminal shows a window around the cursor", () => {
    const editor = new LineEditor();
    editor.apply({ kind: "text", text: "x".repeat(100) });
    const view = editor.view(40);
    assert.equal(view.text.length, 39);
    assert.equal(view.column, 39);
  });

  test("a long paste stays in the transcript as its first lines and a count", () => {
    assert.equal(shownAsTyped("a\nb"), "a\n  b");
    const long = Array.from({ length: 20 }, (_, i) => `line ${i}`).join("\n");
    assert.match(
      plain(shownAsTyped(long)),
      /^line 0\n {2}line 1\n {2}line 2\n {2}\[… pasted 20 lines, \d+ characters\]$/,
    );
  });
});

describe("markdown for the terminal", () => {
  test("headings, emphasis, code, lists, quotes, links lose their markers and keep their shape", () => {
    const text = [
      "# Title",
      "Some **bold**, *italic*, `a_b*c*` and snake_case_name.",
      "- item one",
      "  * nested [docs](https://example.org)",
      "- [x] done",
      "> quoted",
      "```ts",
      "const x = **1**;",
      "```",
      "---",
    ].join("\n");
    assert.equal(
      plain(renderMarkdown(text)),
      [
        "Title",
        "Some bold, italic, a_b*c* and snake_case_name.",
        "• item one",
        "  • nested docs (https://example.org)",
        "• ☑ done",
        "│ quoted",
        "  ─── ts",
        "  const x = **1**;",
        "  ───",
        "────────",
      ].join("\n"),
    );
  });

  test("streamed in arbitrary pieces, a line is rendered once it is complete", () => {
    const stream = new MarkdownStream();
    let out = "";
    for (const piece of ["## Hea", "ding\n**bo", "ld** te", "xt\n```\ncode", " line\n``", "`\ntail"])
      out += stream.push(piece);
    assert.equal(plain(out), "Heading\nbold text\n  ─── code\n  code line\n  ───\n");
    assert.equal(plain(stream.flush()), "tail\n");
  });
});

describe("a question while a run goes", () => {
  test("one key answers; typed-ahead words and pastes do not; Enter, Escape and Ctrl-C say no", async () => {
    const { PassThrough } = await import("node:stream");
    const { TerminalInput } = await import("../../src/cli/chat/terminal-input.js");
    const input = new PassThrough();
    const output = new PassThrough();
    output.resume();
    const terminal = new TerminalInput(input, output);
    let interrupted = 0;
    terminal.busy(() => interrupted++);
    const answer = (...chunks: string[]) => {
      const chosen = terminal.choose("allow? ", ["y", "a", "n"], "n");
      for (const chunk of chunks) input.write(chunk);
      return chosen;
    };
    assert.equal(await answer("yes please", "\x1b[200~y\x1b[201~", "a"), "a");
    assert.equal(await answer("Y"), "y");
    assert.equal(await answer("\r"), "n");
    assert.equal(await answer("\x1b"), "n");
    assert.equal(await answer("\x03"), "n");
    assert.equal(interrupted, 1, "Ctrl-C at a question also stops the run");
    terminal.idle();
    // The words typed while the question was open went nowhere; Enter on an empty line queues nothing.
    const read = terminal.read("> ");
    input.write("next\r");
    assert.equal(await read, "next");
    terminal.close();
  });
});
