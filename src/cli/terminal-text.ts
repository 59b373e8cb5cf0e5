import type { CliIO } from "./io.js";

/**
 * Session text is untrusted: a model, a tool, an imported file or another user of a service wrote
 * it. Printed as it is, an escape sequence in it sets the window title or the clipboard (OSC 52),
 * hides a link behind text (OSC 8), clears the screen or moves the cursor (CSI, or C1 U+009B),
 * `\r` overwrites what was printed, and a bidi override makes text read in another order. Such
 * characters are shown, not obeyed, in two places:
 * - `terminalSafe`, where a renderer takes a session's text (before it adds its colours), so
 *   even a session's colour codes are shown as text;
 * - `terminalGuarded`, the net over a command's whole output: it lets the program's colours
 *   (SGR, `ESC[…m`) through and shows every other control character, so text a renderer did not
 *   pass through `terminalSafe` (an id in a message, a warning) still cannot drive the terminal.
 * A character is shown as its JSON escape (`\u001b`, `\u202e`), so `--json` output keeps its
 * values exact under the net. `export` keeps its stdout as it is: it is data, not a display.
 */

// C0 controls except \t and \n, DEL and C1; then the bidi controls (ALM, LRM, RLM, LRE…RLO, LRI…PDI).
const UNSAFE_CLASS =
  "[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069]";
const ANY_UNSAFE = new RegExp(UNSAFE_CLASS);
const UNSAFE = new RegExp(UNSAFE_CLASS, "g");
/** The program's own colours, or one unsafe character. */
const SGR_OR_UNSAFE = new RegExp(`(\\u001b\\[[0-9;]*m)|${UNSAFE_CLASS}`, "g");
/**
 * What `SGR_OR_UNSAFE` would show as an escape: an unsafe character other than ESC, or an ESC that
 * does not start a colour. Text without one is its own `colourOnly`: one scan, not a replace that
 * calls back for each of the thousands of colours in a coloured transcript.
 */
const UNSAFE_NOT_SGR = new RegExp(
  // The unsafe class with ESC (U+001B) cut out of its C0 range, or an ESC not followed by `[…m`.
  `${UNSAFE_CLASS.replace("\\u000b-\\u001f", "\\u000b-\\u001a\\u001c-\\u001f")}|\\u001b(?!\\[[0-9;]*m)`,
);

/** `text` with every control character but `\n` and `\t` shown as an escape. */
export function terminalSafe(text: string): string {
  if (!ANY_UNSAFE.test(text)) return text;
  // A Windows line end is a line end, not an overwrite.
  return text.replace(/\r\n/g, "\n").replace(UNSAFE, visible);
}

/** `io` whose output shows every control character but `\n`, `\t` and colours (SGR). */
export function terminalGuarded(io: CliIO, { guardOut = true } = {}): CliIO {
  // Getters, not copies: whether stderr is a terminal is asked only when needed (see processIO).
  return {
    out: guardOut ? (text) => io.out(colourOnly(text)) : (text) => io.out(text),
    err: (text) => io.err(colourOnly(text)),
    get stdoutIsTTY() {
      return io.stdoutIsTTY;
    },
    get stderrIsTTY() {
      return io.stderrIsTTY;
    },
    env: io.env,
    cwd: io.cwd,
    columns: io.columns,
  };
}

/** `text` with every control character but `\n`, `\t` and colours (SGR) shown as an escape. */
export function colourOnly(text: string): string {
  if (!UNSAFE_NOT_SGR.test(text)) return text;
  return text.replace(SGR_OR_UNSAFE, (match, sgr: string | undefined) => sgr ?? visible(match));
}

function visible(char: string): string {
  return `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`;
}
