import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { ValidationError } from "../core/errors.js";
import { candidateDirsFor, sessionsDir } from "../file/paths.js";
import { listSessions } from "./list.js";
import { rootOf } from "./new-header.js";
import { getAgentDir } from "./pi-functions.js";
import type { SessionInfo } from "./session-info.js";
import type { SessionManagerOptions } from "./session-manager-options.js";

/**
 * Where existing sessions are looked for: the sessions root, and pi's agent directory when the
 * options leave it in and it exists, so that a pi user who swaps the import keeps finding the
 * sessions pi wrote. New sessions never go there unless the options say so (`root`, a session
 * directory); these roots are only read.
 *
 * pi's directory is in by default when no `root` is given (the drop-in, called with pi's
 * arguments only); a given `root` means that root alone, unless `piAgentDir` names pi's too.
 */
export function lookupRoots(options: SessionManagerOptions): string[] {
  const root = rootOf(options);
  const pi = piAgentDirOf(options);
  if (pi === null) return [root];
  const piRoot = resolve(pi);
  return piRoot !== root && existsSync(piRoot) ? [root, piRoot] : [root];
}

/** Every folder of the lookup roots that may hold sessions of `cwd` (headers tell which do). */
export function lookupDirsFor(cwd: string, options: SessionManagerOptions): string[] {
  const dirs = lookupRoots(options).flatMap((root) => candidateDirsFor(root, cwd));
  return dirs.filter((dir, i) => dirs.indexOf(dir) === i);
}

/** The sessions directories of the lookup roots (`<root>/sessions`), for listing every cwd. */
export function lookupSessionsDirs(options: SessionManagerOptions): string[] {
  return lookupRoots(options).map(sessionsDir);
}

function piAgentDirOf(options: SessionManagerOptions): string | null {
  if (options.piAgentDir !== undefined) return options.piAgentDir;
  return options.root === undefined ? getAgentDir() : null;
}

/**
 * Sessions whose id is `ref` or starts with it, looked up as pi resolves `--session <id>`: among
 * the sessions of `cwd` first and, when none of them matches, among every session of the lookup
 * roots. Most recent first; exact ids before mere prefixes. Empty when nothing matches; an empty
 * `ref` is refused (`invalid_argument`) rather than matching everything.
 */
export async function findSessions(
  ref: string,
  cwd: string,
  options: SessionManagerOptions,
): Promise<SessionInfo[]> {
  if (ref === "") throw new ValidationError("invalid_argument", "A session id or id prefix is needed");
  const local = matching(await listSessions(lookupDirsFor(cwd, options), { cwd }), ref);
  if (local.length > 0) return local;
  return matching(await listSessions(null, { sessionsRoots: lookupSessionsDirs(options) }), ref);
}

function matching(sessions: readonly SessionInfo[], ref: string): SessionInfo[] {
  const exact = sessions.filter((s) => s.id === ref);
  return exact.length > 0 ? exact : sessions.filter((s) => s.id.startsWith(ref));
}
