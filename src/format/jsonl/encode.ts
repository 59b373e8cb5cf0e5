import type { SessionEntry, SessionHeader } from "../../core/entry.js";
import { ValidationError } from "../../core/errors.js";

/**
 * One JSONL line. JSON.stringify never emits a raw newline, so a line is always exactly one line;
 * values it cannot encode (a BigInt, a cycle) are refused before anything is written.
 */
export function encodeLine(value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw new ValidationError(
      "invalid_entry",
      `Entry cannot be written as JSON: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
  if (text === undefined) throw new ValidationError("invalid_entry", "Entry cannot be written as JSON");
  return `${text}\n`;
}

/** Several entries as consecutive lines: what one append writes in a single `write`. */
export function encodeLines(values: readonly unknown[]): string {
  let out = "";
  for (const value of values) out += encodeLine(value);
  return out;
}

/** A whole session file: the header line, then the entries in order. */
export function encodeSession(header: SessionHeader, entries: readonly SessionEntry[]): string {
  return encodeLine(header) + encodeLines(entries);
}
