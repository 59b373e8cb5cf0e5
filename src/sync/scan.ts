import { type Stats, statSync } from "node:fs";
import { sessionsDir } from "../file/paths.js";
import { peekHeader, sessionFilesIn, sessionFoldersIn } from "../session/locate.js";
import type { SessionSyncState } from "./state.js";

/** A local session file as a sync sees it before opening it. */
export interface LocalSession {
  id: string;
  path: string;
  ino: number;
  size: number;
  mtimeMs: number;
}

export interface LocalScan {
  sessions: Map<string, LocalSession>;
  /** Files holding a session id another file holds too: synced once, from the first path. */
  duplicates: Array<{ id: string; path: string; kept: string }>;
}

/**
 * Every session file of a root (ours or pi's folders), by session id. A file whose path and stamp
 * are those the last sync saved is known without reading it: a sync with nothing new reads no
 * session file, it stats them. Other files give their id from their header line; files that are
 * not pi sessions (Claude Code, Codex: `sessiontree import` them first) are left out.
 */
export function scanRoot(root: string, known: Readonly<Record<string, SessionSyncState>>): LocalScan {
  const byPath = new Map<string, { id: string; state: SessionSyncState }>();
  for (const [id, state] of Object.entries(known)) byPath.set(state.path, { id, state });
  const sessions = new Map<string, LocalSession>();
  const duplicates: LocalScan["duplicates"] = [];
  const files = sessionFoldersIn(sessionsDir(root)).flatMap(sessionFilesIn).sort();
  for (const path of files) {
    const stats = statSync(path, { throwIfNoEntry: false });
    if (!stats?.isFile() || stats.size === 0) continue;
    const id = idOf(path, stats, byPath.get(path));
    if (id === undefined) continue;
    const there = sessions.get(id);
    if (there) {
      duplicates.push({ id, path, kept: there.path });
      continue;
    }
    sessions.set(id, { id, path, ino: stats.ino, size: stats.size, mtimeMs: stats.mtimeMs });
  }
  return { sessions, duplicates };
}

function idOf(path: string, stats: Stats, known: { id: string; state: SessionSyncState } | undefined) {
  if (known && known.state.ino === stats.ino && known.state.size <= stats.size) return known.id;
  return peekHeader(path)?.id;
}

/** Whether the file changed since the state was saved (a new file, a grown or replaced one). */
export function changedSince(local: LocalSession, state: SessionSyncState | undefined): boolean {
  if (!state) return true;
  return (
    state.path !== local.path ||
    state.ino !== local.ino ||
    state.size !== local.size ||
    state.mtimeMs !== local.mtimeMs
  );
}
