import assert from "node:assert/strict";
import { describe, it } from "node:test";
import pc from "picocolors";
import { colourOnly, terminalSafe } from "../../src/cli/terminal-text.js";

const colours = pc.createColors(true);

describe("terminalSafe: a session's text shown, not obeyed", () => {
  it("shows C0 (but \\n and \\t), DEL, C1 and bidi controls as JSON escapes", () => {
    assert.equal(terminalSafe("a\u001b[2Jb"), "a\\u001b[2Jb");
    assert.equal(terminalSafe("bell\u0007 del\u007f csi\u009b"), "bell\\u0007 del\\u007f csi\\u009b");
    assert.equal(
      terminalSafe("\u202Egnp.exe \u2066x\u2069 \u200f"),
      "\\u202egnp.exe \\u2066x\\u2069 \\u200f",
    );
    assert.equal(terminalSafe("line\n\tindented"), "line\n\tindented");
  });

  it("reads a Windows line end as a line end, a lone \\r as an overwrite to show", () => {
    assert.equal(terminalSafe("one\r\ntwo\rTWO"), "one\ntwo\\u000dTWO");
  });

  it("leaves other text alone, the same string when there is nothing to show", () => {
    const text = "plain — ünïcode 😀 \u00a0 «mark»";
    assert.equal(terminalSafe(text), text);
  });

  it("is idempotent: what it shows is printable", () => {
    const once = terminalSafe("\u001b]0;t\u0007\u009b\u202e");
    assert.equal(terminalSafe(once), once);
  });

  it("shows a session's own colour codes too (they are added by the program after)", () => {
    assert.equal(terminalSafe("\u001b[8mhidden"), "\\u001b[8mhidden");
  });
});

describe("colourOnly: the net over a command's output", () => {
  it("lets the program's colours through and shows every other control", () => {
    const line = `${colours.bold("name")} \u001b]52;c;eA==\u0007 ${colours.dim("x\u009b2J")}`;
    const shown = colourOnly(line);
    assert.ok(shown.includes(colours.bold("name")));
    assert.ok(shown.includes("\\u001b]52;c;eA==\\u0007"));
    assert.ok(shown.includes("x\\u009b2J"));
  });

  it("keeps JSON's values: what it writes in a JSON string is the JSON escape of the same character", () => {
    const value = { name: "a\u009b\u202e\u007fb", nested: ["\u200e"] };
    const json = JSON.stringify(value);
    const shown = colourOnly(json);
    assert.notEqual(shown, json, "the raw characters were shown as escapes");
    assert.deepEqual(JSON.parse(shown), value);
  });
});

describe("colourOnly: a text with nothing to show is returned as it is, in one scan", () => {
  /** The net as it was first written: every colour and unsafe character replaced, one by one. */
  function colourOnlyByReplace(text: string): string {
    const unsafe =
      "[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069]";
    return text.replace(
      new RegExp(`(\\u001b\\[[0-9;]*m)|${unsafe}`, "g"),
      (match, sgr: string | undefined) => sgr ?? `\\u${match.charCodeAt(0).toString(16).padStart(4, "0")}`,
    );
  }

  it("shows exactly what a replace of every colour and control would, over many mixed texts", () => {
    let state = 7;
    const next = () => {
      state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
      return state / 2 ** 32;
    };
    const pieces = [
      "word ",
      "\n",
      "\t",
      "\u001b[2m",
      "\u001b[22m",
      "\u001b[1;31m",
      "\u001b[m",
      "\u001b",
      "\u001b[",
      "\u001b[2",
      "\u001b[2J",
      "\u001b]0;t\u0007",
      "\u009b",
      "\u007f",
      "\r",
      "\u202e",
      "\u2066",
      "·",
      "😀",
      "[2m",
    ];
    for (let n = 0; n < 2_000; n++) {
      let text = "";
      const length = Math.floor(next() * 12);
      for (let i = 0; i < length; i++) text += pieces[Math.floor(next() * pieces.length)];
      assert.equal(colourOnly(text), colourOnlyByReplace(text), JSON.stringify(text));
    }
  });

  it("a coloured transcript of safe text is the same string", () => {
    const text =
      `${colours.dim("──")} ${colours.bold(colours.green("assistant"))}\n${colours.dim("│ x")}\n`.repeat(50);
    assert.equal(colourOnly(text), text);
  });
});
