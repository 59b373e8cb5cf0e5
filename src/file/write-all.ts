import { writeSync } from "node:fs";

/**
 * Writes all of `data` to `fd` (at its position, or at the end with O_APPEND), returning its length
 * in bytes. `writeSync` may write less than asked (a full disk, a signal); the rest follows. A
 * string goes out without a Buffer copy, which matters on the append path.
 */
export function writeAll(fd: number, data: string | Buffer): number {
  if (typeof data !== "string") {
    writeAllBytes(fd, data);
    return data.length;
  }
  const bytes = Buffer.byteLength(data);
  const written = writeSync(fd, data);
  if (written < bytes) writeAllBytes(fd, Buffer.from(data).subarray(written));
  return bytes;
}

function writeAllBytes(fd: number, data: Buffer): void {
  let written = 0;
  while (written < data.length) written += writeSync(fd, data, written, data.length - written);
}
