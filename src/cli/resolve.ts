import { closeSync, existsSync, openSync, readSync, statSync } from "node:fs";
import { basename, isAbsolute, resolve, sep } from "node:path";
import { headerVersion } from "../core/entry.js";
import { NotFoundError } from "../core/errors.js";
import type { SessionTree } from "../core/tree.js";
import { candidateDirsFor } from "../file/paths.js";
import { CatalogPass } from "../session/list.js";
import { peekHeader, sessionFilesIn } from "../session/locate.js";
import type { SessionInfo } from "../session/session-info.js";
import { UsageError } from "./exit.js";
import type { CliIO } from "./io.js";
import { allSessionFiles, idFromFileName, type Location } from "./location.js";

/** How a command's help names a session argument or option. */
export const SESSION_REF_HELP = "session id, id prefix or file (default: the latest of this directory)";
/** How a command's help names an entry argument. */
export const ENTRY_REF_HELP = "entry id or unique prefix";

/**
 * The file of the session a user named: a path, a session id, or a unique prefix of one. With no
 * name, the most recent session of the current directory. An ambiguous prefix is a usage error
 * that lists the candidates; a name that matches nothing is `session_not_found`.
 */
export function resolveSession(location: Location, ref: string | undefined, io: CliIO): string {
  if (ref === undefined || ref === "") return mostRecent(location, io);
  if (looksLikePath(ref, io)) {
    const path = resolve(io.cwd, ref);
    if (!existsSync(path))
      throw new NotFoundError("session_not_found", `No such file: ${path}`, { details: { path } });
    if (statSync(path).isDirectory()) throw new UsageError(`${path} is a directory, not a session file`);
    return path;
  }
  const files = sessionIdsOf(location);
  const exact = files.filter((f) => f.id === ref);
  if (exact.length === 1) return (exact[0] as { path: string }).path;
  const matches = exact.length > 1 ? exact : files.filter((f) => f.id?.startsWith(ref));
  if (matches.length === 1) return (matches[0] as { path: string }).path;
  const main = exact.length > 1 ? undefined : mainOf(matches);
  if (main) return main.path;
  if (matches.length > 1) {
    const list = matches.slice(0, 10).map((m) => `  ${m.id}  ${m.path}`);
    throw new UsageError(
      `"${ref}" matches ${matches.length} sessions; give more of the id:\n${list.join("\n")}`,
    );
  }
  throw new NotFoundError("session_not_found", `No session "${ref}" under ${location.root}`, {
    details: { ref, root: location.root },
  });
}

/**
 * The one session the others are parts of: an imported Claude Code session's subagents are
 * sessions `<id>.agent-<agent>`, so a prefix of the main id names all of them, and means the main one.
 */
function mainOf<T extends { id: string | undefined }>(matches: T[]): T | undefined {
  const candidates = matches.filter((m) => m.id !== undefined && !m.id.includes("."));
  if (candidates.length !== 1) return undefined;
  const main = candidates[0] as T;
  return matches.every((m) => m === main || m.id?.startsWith(`${main.id}.`)) ? main : undefined;
}

/** Every session file of the location (or those of `paths`) with the id it carries (its name, else its header). */
export function sessionIdsOf(
  location: Location,
  paths: readonly string[] = allSessionFiles(location),
): Array<{ path: string; id: string | undefined }> {
  return paths.map((path) => ({
    path,
    id: idFromFileName(path) ?? peekHeader(path)?.id,
  }));
}

function looksLikePath(ref: string, io: CliIO): boolean {
  if (ref.endsWith(".jsonl") || ref.includes(sep) || ref.includes("/") || isAbsolute(ref)) return true;
  return existsSync(resolve(io.cwd, ref));
}

/**
 * The latest session of the current directory: the first one `ls` lists (`byListingOrder`), not
 * the file written last. A label or a name written to an old session touches its file, but the
 * session is no more recent for it.
 */
function mostRecent(location: Location, io: CliIO): string {
  let latest: SessionInfo | undefined;
  const pass = new CatalogPass(); // unchanged files are only stat'ed
  for (const path of sessionFilesOfCwd(location, io.cwd)) {
    const info = pass.info(path);
    if (info && isSessionOf(info, io.cwd) && (!latest || byListingOrder(info, latest) < 0)) latest = info;
  }
  pass.save();
  if (latest) return latest.path;
  throw new NotFoundError(
    "session_not_found",
    `No session of ${io.cwd} under ${location.root}; name one (see \`sessiontree ls --all\`)`,
    {
      details: { cwd: io.cwd, root: location.root },
    },
  );
}

/** The files `ls` reads for one directory, and among which "the latest session" is chosen. */
export function sessionFilesOfCwd(location: Location, cwd: string): string[] {
  return candidateDirsFor(location.root, cwd).flatMap(sessionFilesIn);
}

/** Whether a session read from one of `cwd`'s folders is `cwd`'s (pi's folder names collide). */
export function isSessionOf(session: Pick<SessionInfo, "cwd">, cwd: string): boolean {
  return session.cwd === cwd;
}

/**
 * The order `ls` lists sessions in, and so which one is "the latest": last activity first (pi's
 * `modified`: the newest message's time, else the header's), then the later file name (names
 * start with the creation time). Sessions without a command's argument resolve to the first.
 */
export function byListingOrder(
  a: Pick<SessionInfo, "modified" | "path">,
  b: Pick<SessionInfo, "modified" | "path">,
): number {
  const newer = b.modified.getTime() - a.modified.getTime();
  if (newer !== 0) return newer;
  return descending(basename(a.path), basename(b.path)) || descending(a.path, b.path);
}

/** Code-unit order, reversed: the same on every machine, whatever its locale. */
function descending(a: string, b: string): number {
  return a < b ? 1 : a > b ? -1 : 0;
}

/**
 * An entry named by id or by a unique prefix of one (Claude Code's ids are long). Ambiguity is a
 * usage error; no match is `entry_not_found`.
 */
export function resolveEntryId(tree: SessionTree, ref: string): string {
  if (tree.getEntry(ref)) return ref;
  const matches = tree
    .getEntries()
    .map((e) => e.id)
    .filter((id) => id.startsWith(ref));
  if (matches.length === 1) return matches[0] as string;
  if (matches.length > 1)
    throw new UsageError(`"${ref}" matches ${matches.length} entries: ${matches.slice(0, 5).join(", ")}…`);
  throw new NotFoundError("entry_not_found", `No entry "${ref}" in this session`, { details: { id: ref } });
}

/**
 * The format version of a session file as it is on disk (1 when the header has none), or null when
 * line 1 is not a readable header. Older files get new entry ids on every read until migrated.
 */
export function versionOnDisk(path: string): number | null {
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.alloc(64 * 1024);
    const n = readSync(fd, buffer, 0, buffer.length, 0);
    const end = buffer.subarray(0, n).indexOf(10);
    const header = JSON.parse(buffer.toString("utf8", 0, end === -1 ? n : end)) as {
      type?: unknown;
      version?: unknown;
    };
    if (header.type !== "session") return null;
    return headerVersion(header);
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}
