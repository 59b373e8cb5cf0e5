import { dirname, resolve } from "node:path";
import { FolderCatalog } from "./catalog.js";
import type { ListingShape } from "./listing-shape.js";
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
  const pass = new CatalogPass();
  const sessions: SessionInfo[] = [];
  let loaded = 0;
  for (const file of files) {
    const info = pass.info(file);
    loaded++;
    options.onProgress?.(loaded, files.length);
    if (info && (options.cwd === undefined || belongsTo(info.cwd, options.cwd))) sessions.push(info);
  }
  pass.save(folders);
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

/**
 * One listing pass over session files, through each folder's catalog. Every file of a folder must
 * be asked for before `save`: a catalog forgets the records of files a pass did not see.
 */
export class CatalogPass {
  private readonly catalogs = new Map<string, FolderCatalog>();

  /** The listing fields of a session file, or null when it is not a session. */
  info(path: string): SessionInfo | null {
    return this.catalogOf(path).info(path);
  }

  /** The tree's counts of a file `info` answered for (see `FolderCatalog.shape`). */
  shape(path: string): ListingShape | null {
    return this.catalogOf(path).shape(path);
  }

  /** Saves each catalog this pass used, and those of `emptyFolders` (which forget their files). */
  save(emptyFolders: readonly string[] = []): void {
    for (const folder of emptyFolders)
      if (!this.catalogs.has(folder)) this.catalogs.set(folder, new FolderCatalog(folder));
    for (const catalog of this.catalogs.values()) catalog.save();
  }

  private catalogOf(path: string): FolderCatalog {
    const folder = dirname(path);
    let catalog = this.catalogs.get(folder);
    if (!catalog) {
      catalog = new FolderCatalog(folder);
      this.catalogs.set(folder, catalog);
    }
    return catalog;
  }
}
