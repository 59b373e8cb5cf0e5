import type { Key } from "./keys.js";

/** What a key did to the line: submitted it, asked to interrupt, ended the input, or just edited. */
export type EditOutcome = "submit" | "interrupt" | "eof" | "edit";

/**
 * The text being typed: a buffer (pastes keep their newlines), a cursor, and the history of
 * submitted prompts (up/down). No I/O: the terminal input draws it with `view`.
 */
export class LineEditor {
  text = "";
  cursor = 0;
  private readonly history: string[] = [];
  private historyIndex = 0;

  apply(key: Key): EditOutcome {
    if (key.kind !== "key") {
      this.insert(key.text);
      return "edit";
    }
    switch (key.name) {
      case "enter":
        return "submit";
      case "ctrl-c":
        return "interrupt";
      case "ctrl-d":
        if (this.text === "") return "eof";
        this.text = this.text.slice(0, this.cursor) + this.text.slice(this.cursor + 1);
        return "edit";
      case "backspace":
        if (this.cursor > 0) {
          this.text = this.text.slice(0, this.cursor - 1) + this.text.slice(this.cursor);
          this.cursor--;
        }
        return "edit";
      case "delete":
        this.text = this.text.slice(0, this.cursor) + this.text.slice(this.cursor + 1);
        return "edit";
      case "left":
        this.cursor = Math.max(0, this.cursor - 1);
        return "edit";
      case "right":
        this.cursor = Math.min(this.text.length, this.cursor + 1);
        return "edit";
      case "home":
        this.cursor = 0;
        return "edit";
      case "end":
        this.cursor = this.text.length;
        return "edit";
      case "ctrl-u":
        this.text = this.text.slice(this.cursor);
        this.cursor = 0;
        return "edit";
      case "ctrl-k":
        this.text = this.text.slice(0, this.cursor);
        return "edit";
      case "ctrl-w": {
        const before = this.text.slice(0, this.cursor).replace(/\S+\s*$/, "");
        this.text = before + this.text.slice(this.cursor);
        this.cursor = before.length;
        return "edit";
      }
      case "up":
      case "down":
        this.browse(key.name === "up" ? -1 : 1);
        return "edit";
      default:
        return "edit";
    }
  }

  /** Takes the text out (into the history) and starts an empty line. */
  take(): string {
    const text = this.text;
    if (text.trim() && this.history.at(-1) !== text) this.history.push(text);
    this.historyIndex = this.history.length;
    this.clear();
    return text;
  }

  clear(): void {
    this.text = "";
    this.cursor = 0;
  }

  /**
   * The line as shown after the prompt, `width` columns at most: newlines of a paste as `↵`, and
   * a window around the cursor when it is longer. `column` is where the cursor goes.
   */
  view(width: number): { text: string; column: number } {
    const shown = this.text.replace(/\n/g, "↵");
    const room = Math.max(10, width - 1);
    if (shown.length <= room) return { text: shown, column: this.cursor };
    const start = Math.max(0, Math.min(this.cursor - Math.floor(room / 2), shown.length - room));
    return { text: shown.slice(start, start + room), column: this.cursor - start };
  }

  private insert(text: string): void {
    this.text = this.text.slice(0, this.cursor) + text + this.text.slice(this.cursor);
    this.cursor += text.length;
  }

  private browse(step: number): void {
    const next = this.historyIndex + step;
    if (next < 0 || next > this.history.length) return;
    this.historyIndex = next;
    this.text = this.history[next] ?? "";
    this.cursor = this.text.length;
  }
}
