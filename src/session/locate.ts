import { closeSync, existsSync, openSync, readdirSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import { decodeHeader } from "../format/jsonl/decode.js";

/** The `.jsonl` files directly in `dir` (none when it does not exist or is not a folder, as in pi). */
export function sessionFilesIn(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return [];
    throw error;
  }
  return names.filter((name) => name.endsWith(".jsonl")).map((name) => join(dir, name));
}

/** Every session folder under a sessions directory. */
export function sessionFoldersIn(sessionsRoot: string): string[] {
  if (!existsSync(sessionsRoot)) return [];
  return readdirSync(sessionsRoot, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => join(sessionsRoot, d.name));
}

/**
 * The header of a session file from its first 64 KiB, read as a whole read finds it (blank lines
 * or a byte order mark before it included: `decodeHeader`), or null when it has none there.
 */
export function peekHeader(path: string): { id: string; cwd: string } | null {
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    const buffer = Buffer.alloc(64 * 1024);
    const n = readSync(fd, buffer, 0, buffer.length, 0);
    const header = decodeHeader(buffer.subarray(0, n));
    if (header === null) return null;
    return { id: header.id, cwd: typeof header.cwd === "string" ? header.cwd : "" };
  } catch {
    return null;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * The most recently modified session among the files of `dirs` (one folder, as pi's
 * `findMostRecentSession` takes it, or several), or null. With `cwd`, only sessions of that cwd: a
 * folder in pi's naming may hold sessions of another cwd that encodes alike (pi #4877), so the
 * header's cwd must match (`belongsTo`). Unlike pi's, a header longer than 512 bytes (a long cwd)
 * does not hide a session.
 */
export function findMostRecentSession(dirs: string | readonly string[], cwd?: string): string | null {
  let best: { path: string; mtime: number } | null = null;
  for (const dir of typeof dirs === "string" ? [dirs] : dirs) {
    for (const path of sessionFilesIn(dir)) {
      const header = peekHeader(path);
      if (!header || (cwd !== undefined && !belongsTo(header.cwd, cwd))) continue;
      const mtime = mtimeOf(path);
      if (mtime === null) continue;
      if (!best || mtime > best.mtime) best = { path, mtime };
    }
  }
  return best?.path ?? null;
}

/**
 * Whether a session whose header names `headerCwd` is one of `cwd`'s, found in one of `cwd`'s
 * folders. A header without a cwd (pi's oldest sessions) belongs to the folder it is in.
 */
export function belongsTo(headerCwd: string, cwd: string): boolean {
  return headerCwd === cwd || headerCwd === "";
}

/** A file's mtime, or null when it went away since the folder was read. */
function mtimeOf(path: string): number | null {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return null;
  }
}
