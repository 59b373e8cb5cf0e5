/**
 * Splitting a line that holds several records with no newline between them: the trace of a write
 * that lost its newline, or of two unlocked writers interleaving (pi writes without a lock). Only
 * tried when `JSON.parse` of the whole line failed, so the usual line costs nothing more.
 *
 * The scan is JSON-aware: it follows strings (with their escapes) and bracket depth, so a `}{`
 * inside a string value never splits a record; each candidate is then given to `JSON.parse`.
 */

/** A piece of a line, by character positions in its decoded text. */
export type GluedPart =
  | { kind: "value"; start: number; end: number; value: unknown }
  | { kind: "damaged"; start: number; end: number; reason: string };

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Where every entry and header we or pi write begins. After damaged bytes the scan resumes at the
 * next one: outside a string it can only start a record, and inside one its quotes would be escaped.
 */
const RECORD_START = '{"type":';

/** Reads the value of `text`'s characters `start`–`end`; throws when they are not one. */
export type PartParser = (start: number, end: number) => unknown;

/**
 * The pieces of `text`, in order: JSON objects that parse, and the damaged bytes between or around
 * them. Whitespace between pieces belongs to none. A line with no object in it gives only damaged
 * pieces: the caller then reports the line as it always has. `parse` reads a candidate (by default
 * `JSON.parse` of its characters; a caller scanning bytes as latin1 decodes them itself).
 */
export function splitGlued(
  text: string,
  parse: PartParser = (start, end) => JSON.parse(text.slice(start, end)),
): GluedPart[] {
  const parts: GluedPart[] = [];
  let position = skipSpace(text, 0);
  while (position < text.length) {
    const value = valueAt(text, position, parse);
    if (value) {
      parts.push(value);
      position = skipSpace(text, value.end);
      continue;
    }
    const next = text.indexOf(RECORD_START, position + 1);
    const end = next === -1 ? text.length : next;
    parts.push({ kind: "damaged", start: position, end, reason: parseError(text.slice(position, end)) });
    position = end;
  }
  return parts;
}

/** The object that starts at `start` and parses, or null. */
function valueAt(text: string, start: number, parse: PartParser): GluedPart | null {
  if (text.charCodeAt(start) !== OPEN_BRACE) return null;
  const end = endOfValue(text, start);
  if (end === -1) return null;
  try {
    return { kind: "value", start, end, value: parse(start, end) };
  } catch {
    return null;
  }
}

/** The position after the bracket that closes the one at `start`; -1 when the text ends first. */
function endOfValue(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
    else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

function skipSpace(text: string, from: number): number {
  let i = from;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d) break;
    i++;
  }
  return i;
}

function parseError(text: string): string {
  try {
    JSON.parse(text);
    return "not an object";
  } catch (error) {
    return (error as Error).message;
  }
}
