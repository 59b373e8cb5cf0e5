import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type CliIO, colorsFor, oneLine } from "../../src/cli/io.js";
import { renderContext } from "../../src/cli/render/context.js";
import type { ProjectedContext } from "../../src/core/context.js";

const plainColors = colorsFor({ env: {}, stdoutIsTTY: false } as CliIO);

/** The cut as it was written first: the whole text flattened, then cut. */
function oneLineWhole(text: string, width: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat.length <= width) return flat;
  return `${flat.slice(0, Math.max(0, width - 1))}…`;
}

/** The clip as it was written first: the whole text split into lines. */
function clipWhole(text: string, maxLines: number): string[] {
  const lines = text.split("\n");
  if (maxLines <= 0 || lines.length <= maxLines) return lines;
  return [...lines.slice(0, maxLines), `… ${lines.length - maxLines} more lines (--full)`];
}

/** Deterministic text mixing words, runs of blanks of every kind, newlines and a surrogate pair. */
function randomText(seed: number, length: number): string {
  let state = seed;
  const next = () => {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    return state / 2 ** 32;
  };
  const pieces = ["word", "x", " ", "  ", "\n", "\n\n", "\t", "\u00a0", "\u2028", "😀", " \n \t ", "é"];
  const blankRun = " ".repeat(300);
  let text = "";
  while (text.length < length) text += next() < 0.02 ? blankRun : pieces[Math.floor(next() * pieces.length)];
  return text;
}

describe("cutting long texts for one line and for a few lines", () => {
  it("oneLine cuts a long text from its head exactly as from the whole text", () => {
    for (let seed = 1; seed <= 400; seed++) {
      const text = randomText(seed, [10, 300, 2_000, 20_000][seed % 4] as number);
      for (const width of [0, 1, 2, 9, 40, 80, 119, 500]) {
        assert.equal(oneLine(text, width), oneLineWhole(text, width), `seed ${seed}, width ${width}`);
      }
    }
  });

  it("oneLine of a text whose head is blank, or whose words end right at the cut", () => {
    const width = 50;
    const cases = [
      `${" ".repeat(10_000)}word`,
      `${" \n".repeat(5_000)}${"w".repeat(60)}`,
      `${"w".repeat(width)}${" ".repeat(10_000)}`,
      `${"w".repeat(width + 1)}${" ".repeat(10_000)}`,
      `${"w ".repeat(width / 2)}${" ".repeat(10_000)}x`,
      "😀".repeat(5_000),
    ];
    for (const text of cases) assert.equal(oneLine(text, width), oneLineWhole(text, width));
  });

  it("a tool result is clipped to the first lines and counts the rest, as the whole split did", () => {
    for (let seed = 1; seed <= 200; seed++) {
      const text = randomText(seed, [0, 5, 60, 3_000][seed % 4] as number);
      for (const maxLines of [0, 1, 2, 12]) {
        const context = {
          messages: [{ role: "toolResult", toolName: "read", content: [{ type: "text", text }] }],
          messageEntryIds: ["e1"],
        } as unknown as ProjectedContext;
        const lines = renderContext(context, { colors: plainColors, width: 80, maxLines });
        assert.deepEqual(lines.slice(1, -1), clipWhole(text, maxLines), `seed ${seed}, ${maxLines} lines`);
      }
    }
  });
});
