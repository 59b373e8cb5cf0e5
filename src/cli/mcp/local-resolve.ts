/**
 * Which file of the root a session reference names. Only the root's own session files can be
 * named: an id, a unique id prefix, or the path of one of them. A path elsewhere (or a symlink out)
 * answers exactly like an unknown id, so the server tells nothing about files outside its root.
 */
import { realpathSync } from "node:fs";
import { isAbsolute, resolve, sep } from "node:path";
import { NotFoundError, SessionTreeError } from "../../core/errors.js";
import { allSessionFiles, type Location } from "../location.js";
import { sessionIdsOf } from "../resolve.js";

export function resolveInRoot(location: Location, ref: string, cwd: string): string {
  const files = sessionIdsOf(location, pathsInRoot(location));
  if (looksLikePath(ref)) {
    const wanted = realOrNull(isAbsolute(ref) ? ref : resolve(cwd, ref));
    const found = wanted === null ? undefined : files.find((f) => realOrNull(f.path) === wanted);
    if (found) return found.path;
    throw notFound(ref);
  }
  const exact = files.filter((f) => f.id === ref);
  const matches = exact.length > 0 ? exact : files.filter((f) => ref !== "" && f.id?.startsWith(ref));
  if (matches.length === 1) return (matches[0] as { path: string }).path;
  if (matches.length > 1) {
    const ids = matches.slice(0, 5).map((m) => m.id ?? m.path);
    throw new SessionTreeError(
      "invalid_argument",
      `"${ref}" names ${matches.length} sessions (${ids.join(", ")}${matches.length > 5 ? ", …" : ""}); give more of the id or the session's path`,
      { details: { ref, matches: matches.map((m) => m.path) } },
    );
  }
  throw notFound(ref);
}

/**
 * The root's session files that are really in it: a file whose real path is elsewhere (a symlink
 * out of the root) is none of them, for reading, listing and searching alike.
 */
export function pathsInRoot(location: Location): string[] {
  const root = realOrNull(location.root);
  if (root === null) return [];
  const inside = `${root}${sep}`;
  return allSessionFiles(location).filter((path) => realOrNull(path)?.startsWith(inside) === true);
}

function looksLikePath(ref: string): boolean {
  return ref.endsWith(".jsonl") || ref.includes("/") || ref.includes("\\");
}

function realOrNull(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

function notFound(ref: string): NotFoundError {
  return new NotFoundError("session_not_found", `No session "${ref}" here`, { details: { ref } });
}
