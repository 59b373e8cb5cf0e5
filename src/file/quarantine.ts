import { closeSync, fsyncSync, openSync } from "node:fs";
import { writeAll } from "./write-all.js";

/**
 * Saves bytes that must leave a session file (a torn tail) beside it, durably, before they are
 * cut: `<file>.torn-<offset>-<time>`. Nothing a writer put on disk is thrown away.
 */
export function quarantineBytes(path: string, offset: number, bytes: Buffer): string {
  const target = `${path}.torn-${offset}-${Date.now()}`;
  const fd = openSync(target, "wx");
  try {
    writeAll(fd, bytes);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return target;
}
