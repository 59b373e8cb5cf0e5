import { mkdirSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { CompactionEntry, SessionEntry } from "../core/entry.js";
import { encodeCwdPi, expandHome, sessionsDir } from "../file/paths.js";
import type { SessionManager } from "./session-manager.js";

/**
 * The module-level names pi's `session-manager` module exports beside its class, with pi's
 * signatures, so that code importing them from pi works by changing the import. Each is built on
 * sessiontree's own reading, migration and projection; where one differs from pi, it keeps data
 * pi would drop, and its comment says how.
 */
export { buildSessionContext, type SessionContext } from "../core/context.js";
export { CURRENT_SESSION_VERSION } from "../core/entry.js";
export { findMostRecentSession } from "./locate.js";
export { migrateSessionEntries } from "./pi-migrate.js";
export {
  type FileEntry,
  loadEntriesFromFile,
  type ParseIssueListener,
  parseSessionEntries,
} from "./pi-parse.js";

/** pi's read-only view of a session manager (what its extensions are given). */
export type ReadonlySessionManager = Pick<
  SessionManager,
  | "getCwd"
  | "getSessionDir"
  | "getSessionId"
  | "getSessionFile"
  | "getLeafId"
  | "getLeafEntry"
  | "getEntry"
  | "getLabel"
  | "getBranch"
  | "getHeader"
  | "getEntries"
  | "getTree"
  | "getSessionName"
>;

/** pi's `getLatestCompactionEntry`: the last compaction in `entries` (file order), or null. */
export function getLatestCompactionEntry(entries: readonly SessionEntry[]): CompactionEntry | null {
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i];
    if (entry?.type === "compaction") return entry;
  }
  return null;
}

/**
 * pi's agent directory, computed as pi computes it: env `PI_CODING_AGENT_DIR` (a leading `~`
 * is the home directory), else `~/.pi/agent`.
 */
export function getAgentDir(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.PI_CODING_AGENT_DIR;
  if (fromEnv) return expandHome(fromEnv);
  return join(homedir(), ".pi", "agent");
}

/**
 * pi's `getDefaultSessionDir`: pi's folder for `cwd` under its agent directory
 * (`<agentDir>/sessions/--<cwd with / as ->--`), created when missing, as pi does. This is where
 * pi keeps the sessions of `cwd`; sessiontree's own default folder is `sessionDirFor(root, cwd)`.
 */
export function getDefaultSessionDir(cwd: string, agentDir: string = getAgentDir()): string {
  const dir = join(sessionsDir(agentDir), encodeCwdPi(cwd));
  mkdirSync(dir, { recursive: true });
  return dir;
}
