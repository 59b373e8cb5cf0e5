import { dirname, resolve } from "node:path";
import { FolderCatalog } from "./catalog.js";
import { belongsTo, sessionFilesIn, sessionFoldersIn } from "./locate.js";
import type { SessionInfo } from "./session-info.js";

export type SessionListProgress = (loaded: number, total: number) => void;

export interface ListSessionsOptions {
  onProgress?: SessionListProgress;
  /** Keep only sessions whose header cwd is this (pi's folder names collide). */
  cwd?: string;
  /** With `dirs` null: list every folder under these sessions directories. */
  sessionsRoots?: readonly string[];
}

/**
 * Lists session files in `dirs` (or every folder of `sessionsRoots`), newest activity first. Each
 * folder's catalog (catalog.ts) answers for files that did not change since the last listing, so a
 * repeated listing stats the files instead of reading them.
 */
export async function listSessions(
  dirs: readonly string[] | null,
  options: ListSessionsOptions = {},
): Promise<SessionInfo[]> {
  const folders = unique(dirs ?? (options.sessionsRoots ?? []).flatMap(sessionFoldersIn));
  const files = folders.flatMap(sessionFilesIn);
  const catalogs = new Map<string, FolderCatalog>();
  const sessions: SessionInfo[] = [];
  let loaded = 0;
  for (const file of files) {
    const folder = dirname(file);
    let catalog = catalogs.get(folder);
    if (!catalog) {
      catalog = new FolderCatalog(folder);
      catalogs.set(folder, catalog);
    }
    const info = catalog.info(file);
    loaded++;
    options.onProgress?.(loaded, files.length);
    if (info && (options.cwd === undefined || belongsTo(info.cwd, options.cwd))) sessions.push(info);
  }
  for (const folder of folders) (catalogs.get(folder) ?? new FolderCatalog(folder)).save();
  sessions.sort((a, b) => b.modified.getTime() - a.modified.getTime());
  return sessions;
}

/** The folders once each (pi's folder and ours may be one when the root is pi's directory). */
function unique(folders: readonly string[]): string[] {
  const seen = new Set<string>();
  return folders.filter((folder) => {
    const key = resolve(folder);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
