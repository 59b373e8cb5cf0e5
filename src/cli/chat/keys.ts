/** One thing the user did at the keyboard, as the chat's line editor understands it. */
export type Key =
  | { kind: "text"; text: string }
  /** A bracketed paste (ESC[200~ … ESC[201~): inserted as it is, newlines included, never submitted. */
  | { kind: "paste"; text: string }
  | { kind: "key"; name: KeyName };

export type KeyName =
  | "enter"
  | "backspace"
  | "delete"
  | "left"
  | "right"
  | "up"
  | "down"
  | "home"
  | "end"
  | "ctrl-c"
  | "ctrl-d"
  | "ctrl-u"
  | "ctrl-w"
  | "ctrl-k"
  | "escape";

const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";

const SEQUENCES: Record<string, KeyName> = {
  "\x1b[A": "up",
  "\x1b[B": "down",
  "\x1b[C": "right",
  "\x1b[D": "left",
  "\x1b[H": "home",
  "\x1b[F": "end",
  "\x1bOA": "up",
  "\x1bOB": "down",
  "\x1bOC": "right",
  "\x1bOD": "left",
  "\x1bOH": "home",
  "\x1bOF": "end",
  "\x1b[1~": "home",
  "\x1b[4~": "end",
  "\x1b[3~": "delete",
};

const CONTROLS: Record<string, KeyName> = {
  "\r": "enter",
  "\n": "enter",
  "\x7f": "backspace",
  "\b": "backspace",
  "\x03": "ctrl-c",
  "\x04": "ctrl-d",
  "\x15": "ctrl-u",
  "\x17": "ctrl-w",
  "\x0b": "ctrl-k",
  "\x01": "home",
  "\x05": "end",
};

/**
 * Turns raw terminal input into keys. It keeps state between chunks: a paste arrives in many
 * chunks, and everything between its markers is one paste, whatever it holds.
 */
export class KeyParser {
  private pasting: string | undefined;
  private pending = "";

  push(chunk: string): Key[] {
    const keys: Key[] = [];
    let rest = this.pending + chunk;
    this.pending = "";
    while (rest.length > 0) {
      if (this.pasting !== undefined) {
        const end = rest.indexOf(PASTE_END);
        if (end < 0) {
          // Keep a possible start of the end marker for the next chunk.
          const keep = partialSuffix(rest, PASTE_END);
          this.pasting += rest.slice(0, rest.length - keep);
          this.pending = rest.slice(rest.length - keep);
          return keys;
        }
        keys.push({ kind: "paste", text: normalizeNewlines(this.pasting + rest.slice(0, end)) });
        this.pasting = undefined;
        rest = rest.slice(end + PASTE_END.length);
        continue;
      }
      if (rest.startsWith(PASTE_START)) {
        this.pasting = "";
        rest = rest.slice(PASTE_START.length);
        continue;
      }
      if (rest[0] === "\x1b") {
        const sequence = Object.keys(SEQUENCES).find((s) => rest.startsWith(s));
        if (sequence) {
          keys.push({ kind: "key", name: SEQUENCES[sequence] as KeyName });
          rest = rest.slice(sequence.length);
          continue;
        }
        // A lone ESC is the Escape key (terminals send it alone); "ESC[20" is a paste marker cut short.
        if (rest.length > 1 && partialSuffix(rest, PASTE_START) === rest.length) {
          this.pending = rest;
          return keys;
        }
        // An escape sequence we do not use (F-keys, alt-x): skipped whole, never typed as text.
        // biome-ignore lint/suspicious/noControlCharactersInRegex: escape sequences are what this parses.
        const unknown = /^\x1b(\[[0-9;?]*[ -/]*[@-~]|O.|.)?/s.exec(rest)?.[0] ?? "\x1b";
        if (unknown === "\x1b") keys.push({ kind: "key", name: "escape" });
        rest = rest.slice(unknown.length);
        continue;
      }
      const control = CONTROLS[rest[0] as string];
      if (control) {
        // A CR LF pair is one Enter.
        const width = rest.startsWith("\r\n") ? 2 : 1;
        keys.push({ kind: "key", name: control });
        rest = rest.slice(width);
        continue;
      }
      // biome-ignore lint/suspicious/noControlCharactersInRegex: text is what is not a control character.
      const text = /^[^\x00-\x1f\x7f]+/.exec(rest)?.[0];
      if (text) keys.push({ kind: "text", text });
      rest = rest.slice(text ? text.length : 1);
    }
    return keys;
  }
}

/** How many characters at the end of `text` could be the start of `marker`. */
function partialSuffix(text: string, marker: string): number {
  for (let n = Math.min(marker.length - 1, text.length); n > 0; n--)
    if (marker.startsWith(text.slice(text.length - n))) return n;
  return 0;
}

function normalizeNewlines(text: string): string {
  return text.replace(/\r\n?/g, "\n");
}
