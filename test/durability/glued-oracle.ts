import type { SessionEntry } from "../../src/core/entry.js";
import { checkEntryRead } from "../../src/core/validate.js";

/**
 * The entries a line holds, found independently of the reader (no bracket scan): the whole line
 * when it parses; otherwise, from each place a record may start, the shortest piece ending in `}`
 * that parses, and after a piece that does not, the next `{"type":`. Slow (a parse per `}`), which
 * is fine for test files. What the readers must keep from a line, glued records included.
 */
export function entriesOfLine(bytes: Buffer): SessionEntry[] {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return [];
  }
  return valuesOf(text).flatMap((value) => {
    // As the reader keeps them: malformed entries too (core/validate.ts).
    const checked = checkEntryRead(value);
    return checked.ok ? [checked.value] : [];
  });
}

function valuesOf(text: string): unknown[] {
  const whole = tryParse(text);
  if (whole.ok) return [whole.value];
  const values: unknown[] = [];
  let start = firstNonSpace(text, 0);
  while (start < text.length) {
    const found = text[start] === "{" ? shortestObjectAt(text, start) : null;
    if (found) {
      values.push(found.value);
      start = firstNonSpace(text, found.end);
    } else {
      const next = text.indexOf('{"type":', start + 1);
      start = next === -1 ? text.length : next;
    }
  }
  return values;
}

function shortestObjectAt(text: string, start: number): { value: unknown; end: number } | null {
  for (let close = text.indexOf("}", start); close !== -1; close = text.indexOf("}", close + 1)) {
    const parsed = tryParse(text.slice(start, close + 1));
    if (parsed.ok && typeof parsed.value === "object" && parsed.value !== null)
      return { value: parsed.value, end: close + 1 };
  }
  return null;
}

function tryParse(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

function firstNonSpace(text: string, from: number): number {
  let i = from;
  while (i < text.length && " \t\r".includes(text[i] as string)) i++;
  return i;
}
