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
