import { closeSync, fsyncSync, openSync, writeSync } from "node:fs";

/**
 * Saves bytes that must leave a session file (a torn tail) beside it, durably, before they are
 * cut: `<file>.torn-<offset>-<time>`. Nothing a writer put on disk is thrown away.
 */
export function quarantineBytes(path: string, offset: number, bytes: Buffer): string {
  const target = `${path}.torn-${offset}-${Date.now()}`;
  const fd = openSync(target, "wx");
  try {
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return target;
}
