import { isAbsolute, relative, resolve } from "node:path";
import { ValidationError } from "../../core/errors.js";

/**
 * A tool's path resolved inside `root`, or a typed refusal. The file tools stay inside the working
 * directory the chat (or application) gave them; `bash` is the way out, under its own rule.
 */
export function insideRoot(root: string, path: string): string {
  const full = resolve(root, path);
  const rel = relative(root, full);
  if (rel.startsWith("..") || isAbsolute(rel)) {
    throw new ValidationError("invalid_argument", `${path} is outside ${root}`, { details: { path } });
  }
  return full;
}

/** A path in one form relative to `root` ("." for the root), for permission rules to match. */
export function relativeToRoot(root: string, path: string): string {
  return relative(root, resolve(root, path)) || ".";
}

/** Text cut to at most `max` characters, keeping its end, with a note saying what was cut. */
export function capTail(text: string, max: number): string {
  if (text.length <= max) return text;
  return `[… ${text.length - max} earlier characters cut]\n${text.slice(text.length - max)}`;
}
