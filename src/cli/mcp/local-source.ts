/**
 * Sessions from the files under one root (`--root`, `--pi`, or the usual default). Listing goes
 * through the folder catalogs `ls` keeps; reading goes through the file layer (never the session
 * manager, which may take a lease) and is kept while the file is unchanged (session-cache.ts).
 */
import { CURRENT_SESSION_VERSION } from "../../core/entry.js";
import { SessionTreeError } from "../../core/errors.js";
import { refuseUnreadable } from "../../file/file-kind.js";
import { sessionsDir } from "../../file/paths.js";
import { readForOpen } from "../../file/session-read.js";
import { listSessions } from "../../session/list.js";
import type { SessionInfo } from "../../session/session-info.js";
import type { SessionManager } from "../../session/session-manager.js";
import type { Location } from "../location.js";
import { byListingOrder, versionOnDisk } from "../resolve.js";
import { pathsInRoot, resolveInRoot } from "./local-resolve.js";
import { SessionCache } from "./session-cache.js";
import type {
  ListFilter,
  LoadedSession,
  SearchScope,
  SessionListing,
  SessionSearch,
  SessionSource,
  SessionWriter,
} from "./source.js";

export class LocalSource implements SessionSource {
  readonly where: string;
  readonly writer?: SessionWriter;
  private readonly cache = new SessionCache();

  constructor(
    private readonly location: Location,
    /** The server's working directory: relative paths are read from there. */
    private readonly cwd: string,
    options: { allowWrites?: boolean } = {},
  ) {
    this.where = `root ${location.root}`;
    if (options.allowWrites) this.writer = new LocalWriter(this);
  }

  async list(filter: ListFilter): Promise<SessionListing[]> {
    const infos = await listSessions(null, { sessionsRoots: [sessionsDir(this.location.root)] });
    const inRoot = new Set(pathsInRoot(this.location));
    const kept = infos.filter(
      (info) => inRoot.has(info.path) && (filter.cwd === undefined || info.cwd === filter.cwd),
    );
    kept.sort(byListingOrder);
    const shown = filter.limit === undefined ? kept : kept.slice(0, filter.limit);
    return shown.map((info) => this.listing(info));
  }

  async load(ref: string): Promise<LoadedSession> {
    return this.cache.get(this.pathOf(ref), readSession);
  }

  /**
   * The root's full-text index (`searchLocal`), brought up to date by file stamps first. A named
   * session is resolved as `load` resolves it, so the scope is the root's files and nothing else.
   */
  async search(query: string, scope: SearchScope): Promise<SessionSearch> {
    const named = scope.session === undefined ? undefined : this.pathOf(scope.session);
    // Another tool's file or an empty one: the answer `load` gives, not a silent skip.
    if (named !== undefined) refuseUnreadable(named);
    // better-sqlite3 is loaded at the first search, not when the server starts.
    const { searchLocalDetailed } = await import("../../session/search/index.js");
    const { hits, skipped } = searchLocalDetailed({
      query,
      root: this.location.root,
      // Named, or every file really in the root (a symlink out of it is searched by no one).
      files: named === undefined ? pathsInRoot(this.location) : [named],
      cwd: scope.cwd,
      limit: scope.limit,
    });
    return { hits, skipped };
  }

  /** The file a reference names, within the root only. */
  pathOf(ref: string): string {
    return resolveInRoot(this.location, ref, this.cwd);
  }

  get root(): string {
    return this.location.root;
  }

  /** A catalog row, with the entry count `tree` would show (read through the cache). */
  private listing(info: SessionInfo): SessionListing {
    let entryCount = 0;
    try {
      entryCount = this.cache.get(info.path, readSession).tree.getEntries().length;
    } catch {
      // A file that went away or cannot be read since the catalog saw it: listed, counted as 0.
    }
    return {
      id: info.id,
      name: info.name ?? null,
      cwd: info.cwd,
      firstMessage: info.firstMessage,
      messageCount: info.messageCount,
      entryCount,
      created: isoOrEmpty(info.created),
      modified: isoOrEmpty(info.modified),
      path: info.path,
    };
  }
}

/** Reads a session file whole; another tool's file or an empty one is refused as the CLI does. */
function readSession(path: string): LoadedSession {
  refuseUnreadable(path);
  const { decoded, tree } = readForOpen(path);
  const version = versionOnDisk(path);
  const session: LoadedSession = {
    id: decoded.header.id,
    name: tree.getSessionName() ?? null,
    cwd: decoded.header.cwd ?? "",
    path,
    tree,
  };
  if (version !== null && version < CURRENT_SESSION_VERSION)
    session.note = `a v${version} file: its entry ids are made up on reading; they stay the same while this server runs and the file is unchanged (\`sessiontree migrate\` makes them permanent)`;
  return session;
}

function isoOrEmpty(date: Date): string {
  return Number.isNaN(date.getTime()) ? "" : date.toISOString();
}

/**
 * Writes through the session manager, as `sessiontree label` and `checkout` do: the writer lease
 * is taken, so a session an agent owns right now is refused (`lease_held`).
 */
class LocalWriter implements SessionWriter {
  constructor(private readonly source: LocalSource) {}

  async setLabel(session: LoadedSession, entryId: string, label: string | undefined): Promise<void> {
    await this.withManager(session, (manager) => {
      manager.tree.requireEntry(entryId);
      manager.appendLabelChange(entryId, label);
    });
  }

  async checkout(session: LoadedSession, entryId: string): Promise<void> {
    await this.withManager(session, (manager) => manager.branch(entryId));
  }

  private async withManager(session: LoadedSession, use: (manager: SessionManager) => void): Promise<void> {
    const path = this.source.pathOf(session.path ?? session.id);
    refuseUnreadable(path);
    // The ids an agent was shown of an old file were made up by the server's read; the manager
    // would make up others. Writing needs the permanent ids of a migrated file.
    const version = versionOnDisk(path);
    if (version !== null && version < CURRENT_SESSION_VERSION)
      throw new SessionTreeError(
        "invalid_argument",
        `${path} is a v${version} file without permanent entry ids: run \`sessiontree migrate\` before writing to it`,
        { details: { path, version } },
      );
    const { SessionManager } = await import("../../session/session-manager.js");
    const manager = SessionManager.open(path, undefined, undefined, {
      root: this.source.root,
      lease: "fail",
    });
    try {
      use(manager);
    } finally {
      manager.close();
    }
  }
}
