import { createRequire } from "node:module";

/** The part of fs-ext (a native add-on: flock, lseek) this project calls. */
export interface FsExt {
  flockSync(fd: number, flags: "ex" | "sh" | "un" | "exnb" | "shnb"): void;
  seekSync(fd: number, offset: number, whence: number): number;
  constants: { SEEK_END: number };
}

let loaded: FsExt | undefined;

/**
 * fs-ext, loaded on first use rather than when a module that may lock is imported: loading the
 * add-on costs about 7 ms, which every read-only command (`tree`, `show`) would pay for nothing.
 */
export function fsExt(): FsExt {
  loaded ??= createRequire(import.meta.url)("fs-ext") as FsExt;
  return loaded;
}
