import { closeSync, existsSync, openSync, readdirSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import { checkHeader } from "../core/validate.js";

/** The `.jsonl` files directly in `dir` (none when it does not exist). */
export function sessionFilesIn(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.endsWith(".jsonl"))
    .map((name) => join(dir, name));
}

/** Every session folder under a sessions directory. */
export function sessionFoldersIn(sessionsRoot: string): string[] {
  if (!existsSync(sessionsRoot)) return [];
  return readdirSync(sessionsRoot, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => join(sessionsRoot, d.name));
}

/** The header of a session file from its first bytes, or null when line 1 is not a session header. */
export function peekHeader(path: string): { id: string; cwd: string } | null {
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    const buffer = Buffer.alloc(64 * 1024);
    const n = readSync(fd, buffer, 0, buffer.length, 0);
    const newline = buffer.subarray(0, n).indexOf(10);
    const firstLine = buffer.toString("utf8", 0, newline === -1 ? n : newline);
    const checked = checkHeader(JSON.parse(firstLine));
    if (!checked.ok) return null;
    return { id: checked.value.id, cwd: typeof checked.value.cwd === "string" ? checked.value.cwd : "" };
  } catch {
    return null;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * The most recently modified session of `cwd` among `dirs`. A folder in pi's naming may hold
 * sessions of another cwd that encodes alike (pi #4877), so the header's cwd must match.
 */
export function findMostRecentSession(dirs: readonly string[], cwd?: string): string | null {
  let best: { path: string; mtime: number } | null = null;
  for (const dir of dirs) {
    for (const path of sessionFilesIn(dir)) {
      const header = peekHeader(path);
      if (!header || (cwd !== undefined && header.cwd !== cwd)) continue;
      const mtime = statSync(path).mtimeMs;
      if (!best || mtime > best.mtime) best = { path, mtime };
    }
  }
  return best?.path ?? null;
}
