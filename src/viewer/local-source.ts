import { existsSync, statSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { NotFoundError } from "../core/errors.js";
import { compareHits } from "../core/search-hit.js";
import { refuseUnreadable } from "../file/file-kind.js";
import { defaultPiAgentDir, defaultRoot, sessionsDir } from "../file/paths.js";
import { SessionManager } from "../session/session-manager.js";
import { rememberTree } from "./context-at.js";
import { openThroughIndex } from "./indexed-open.js";
import type {
  ViewerOrigin,
  ViewerSearchHit,
  ViewerSession,
  ViewerSessionSummary,
  ViewerSource,
} from "./source.js";

export interface LocalSourceOptions {
  /** sessiontree's root. @default env SESSIONTREE_ROOT or ~/.sessiontree */
  root?: string;
  /** pi's agent directory; `null` leaves pi's sessions out. @default env PI_CODING_AGENT_DIR or ~/.pi/agent */
  piDir?: string | null;
  /**
   * Read every session whole, as before sessions were served through their sidecar index (for
   * comparing the two: bench/viewer.ts). @default false
   */
  wholeRead?: boolean;
}

interface LocalOrigin {
  source: string;
  root: string;
  sessions: string;
}

/**
 * Session files on this machine: sessiontree's root and pi's agent directory, each session tagged
 * with where it came from. Reads only; opening a session never writes to it.
 *
 * Keys are `<source>:<folder>/<file>.jsonl` relative to that origin's sessions folder, and a key is
 * resolved only to a `.jsonl` file two levels inside it, so a key cannot name any other file.
 */
export function createLocalSource(options: LocalSourceOptions = {}): ViewerSource {
  const origins = localOrigins(options);
  return {
    async describe(): Promise<ViewerOrigin[]> {
      return origins.map((o) => ({ source: o.source, location: o.sessions, exists: existsSync(o.sessions) }));
    },
    async listSessions(): Promise<ViewerSessionSummary[]> {
      const lists = await Promise.all(origins.map((origin) => listOrigin(origin)));
      return lists
        .flat()
        .sort((a, b) => b.modifiedAt.localeCompare(a.modifiedAt) || a.key.localeCompare(b.key));
    },
    async loadSession(key: string): Promise<ViewerSession> {
      const { origin, path } = resolveKey(origins, key);
      return loadFile(origin, key, path, options.wholeRead === true);
    },
    async version(key: string): Promise<string> {
      const stats = statSync(resolveKey(origins, key).path, { bigint: true });
      return `${stats.ino}:${stats.size}:${stats.mtimeNs}`;
    },
    search: (query, { limit }) => searchOrigins(origins, query, limit),
  };
}

/**
 * The local full-text index (`searchLocal`, docs/search.md) of each origin this viewer lists, the
 * hits merged best first. Each hit's key is its file's, as the list gives it. The index is loaded
 * at the first search, so opening the viewer does not load better-sqlite3.
 */
async function searchOrigins(
  origins: readonly LocalOrigin[],
  query: string,
  limit: number,
): Promise<ViewerSearchHit[]> {
  const { parseQuery, searchLocal } = await import("../session/search/index.js");
  parseQuery(query); // a query with no word is refused even where there is nothing to search
  const hits: ViewerSearchHit[] = [];
  for (const origin of origins) {
    if (!existsSync(origin.sessions)) continue;
    for (const hit of searchLocal({ query, root: origin.root, limit })) {
      // Every local hit names its file; one outside the folder's two levels is not listed either.
      const key = hit.path === undefined ? null : keyOf(origin, hit.path);
      if (key !== null) hits.push({ ...hit, key });
    }
  }
  return hits.sort(compareHits).slice(0, limit);
}

function localOrigins(options: LocalSourceOptions): LocalOrigin[] {
  const root = resolve(options.root ?? defaultRoot());
  const origins: LocalOrigin[] = [{ source: "sessiontree", root, sessions: sessionsDir(root) }];
  const piDir = options.piDir === undefined ? defaultPiAgentDir() : options.piDir;
  // Pointing --root at pi's directory is allowed: then it is listed once, as ours.
  if (piDir !== null && resolve(piDir) !== root) {
    origins.push({ source: "pi", root: resolve(piDir), sessions: sessionsDir(resolve(piDir)) });
  }
  return origins;
}

async function listOrigin(origin: LocalOrigin): Promise<ViewerSessionSummary[]> {
  if (!existsSync(origin.sessions)) return [];
  const infos = await SessionManager.listAll(undefined, { root: origin.root });
  return infos.map((info) => ({
    key: `${origin.source}:${relative(origin.sessions, info.path).split(sep).join("/")}`,
    source: origin.source,
    id: info.id,
    cwd: info.cwd,
    name: info.name,
    firstMessage: info.firstMessage,
    messageCount: info.messageCount,
    createdAt: validIso(info.created),
    modifiedAt: validIso(info.modified),
    location: info.path,
  }));
}

/** The key of a file two levels inside the origin's sessions folder (`resolveKey` takes it back). */
function keyOf(origin: LocalOrigin, path: string): string | null {
  const parts = relative(origin.sessions, path).split(sep);
  if (parts.length !== 2 || parts[0] === "..") return null;
  return `${origin.source}:${parts.join("/")}`;
}

function validIso(date: Date): string {
  return Number.isNaN(date.getTime()) ? new Date(0).toISOString() : date.toISOString();
}

function resolveKey(origins: readonly LocalOrigin[], key: string): { origin: LocalOrigin; path: string } {
  const colon = key.indexOf(":");
  const origin = origins.find((o) => o.source === key.slice(0, colon));
  const rel = key.slice(colon + 1);
  const parts = rel.split("/");
  const path = origin ? resolve(origin.sessions, ...parts) : "";
  const inside = origin && !isAbsolute(rel) && relative(origin.sessions, path).split(sep).length === 2;
  const safe = inside && parts.every((p) => p !== "" && p !== "." && p !== "..") && rel.endsWith(".jsonl");
  if (!origin || !safe || !existsSync(path) || !statSync(path).isFile()) {
    throw new NotFoundError("session_not_found", `No session ${key}`, { details: { key } });
  }
  return { origin, path };
}

/**
 * A session file as the viewer shows it: served through its sidecar index when it can be (the
 * index made on the way: indexed-open.ts), so the page draws from the tree's shape and the lines it
 * shows, read by offset; otherwise, and for what needs every entry, read whole.
 */
function loadFile(origin: LocalOrigin, key: string, path: string, wholeRead: boolean): ViewerSession {
  // Opening an empty file would start a new session (as pi does), and another tool's file reads as
  // one error per line: the viewer shows neither, it says what the file is.
  refuseUnreadable(path);
  const readWhole = () => readWholeFile(origin, key, path);
  return (
    (wholeRead ? null : openThroughIndex({ key, source: origin.source, path, readWhole })) ?? readWhole()
  );
}

function readWholeFile(origin: LocalOrigin, key: string, path: string): ViewerSession {
  const manager = SessionManager.open(path, undefined, undefined, { root: origin.root });
  try {
    const header = manager.getHeader();
    if (!header) throw new NotFoundError("session_not_found", `No session ${key}`, { details: { key } });
    const session: ViewerSession = {
      key,
      source: origin.source,
      header,
      entries: manager.getEntries(),
      leafId: manager.getLeafId(),
      labels: Object.fromEntries(manager.tree.getLabels()),
      name: manager.getSessionName(),
      issues: manager.getIssues(),
    };
    // The manager's index of the session: the viewer draws and projects from it, not a copy.
    rememberTree(session, manager.tree);
    return session;
  } finally {
    manager.close();
  }
}
