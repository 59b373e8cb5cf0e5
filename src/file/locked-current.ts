import { closeSync, constants, fstatSync, statSync } from "node:fs";
import { withExclusiveLock } from "./flock.js";
import { openExisting } from "./read-file.js";

/**
 * Runs `work` under the exclusive lock of the file `path` names *once the lock is held*. A rewrite
 * (repair, migrate) renames a new file in under the old one's lock: whoever waited on that lock
 * then holds the lock of a file the path no longer names, and whatever it read and wrote from
 * there would put the old content back over the new (entries appended since, lost). So the path is
 * asked again under the lock, and a replaced file is let go and the path opened anew, as appenders
 * do (session-append.ts, `sizeIfStillOurs`). A path that is gone ends it: `session_not_found`.
 */
export function withCurrentFileLocked<T>(
  path: string,
  work: (fd: number) => T,
  flags: number = constants.O_RDONLY,
): T {
  for (;;) {
    const fd = openExisting(path, flags);
    try {
      const outcome = withExclusiveLock(fd, () => (pathNames(path, fd) ? { value: work(fd) } : null));
      if (outcome) return outcome.value;
    } finally {
      closeSync(fd);
    }
  }
}

/** Whether `path` names the open file `fd` (the same inode on the same device). */
function pathNames(path: string, fd: number): boolean {
  const open = fstatSync(fd);
  const named = statSync(path, { throwIfNoEntry: false });
  return named !== undefined && named.ino === open.ino && named.dev === open.dev;
}
