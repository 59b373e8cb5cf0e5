import { sessionFilesIn, sessionFoldersIn } from "./locate.js";
import { readSessionInfo, type SessionInfo } from "./session-info.js";

export type SessionListProgress = (loaded: number, total: number) => void;

export interface ListSessionsOptions {
  onProgress?: SessionListProgress;
  /** Keep only sessions whose header cwd is this (pi's folder names collide). */
  cwd?: string;
  /** With `dirs` null: list every folder under this sessions directory. */
  sessionsRoot?: string;
}

/** Lists session files in `dirs` (or every folder of `sessionsRoot`), newest activity first. */
export async function listSessions(
  dirs: readonly string[] | null,
  options: ListSessionsOptions = {},
): Promise<SessionInfo[]> {
  const folders = dirs ?? sessionFoldersIn(options.sessionsRoot ?? "");
  const files = folders.flatMap(sessionFilesIn);
  const sessions: SessionInfo[] = [];
  let loaded = 0;
  for (const file of files) {
    const info = readSessionInfo(file);
    loaded++;
    options.onProgress?.(loaded, files.length);
    if (info && (options.cwd === undefined || info.cwd === options.cwd)) sessions.push(info);
  }
  sessions.sort((a, b) => b.modified.getTime() - a.modified.getTime());
  return sessions;
}
