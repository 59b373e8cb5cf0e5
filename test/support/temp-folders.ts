import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after } from "node:test";

/**
 * A temporary root for one test file, removed when its tests are done, and `fresh()` folders in
 * it, one per case, so files of different cases never meet.
 */
export function tempFolders(prefix: string): { root: string; fresh: () => string } {
  const root = mkdtempSync(join(tmpdir(), `${prefix}-`));
  after(() => rmSync(root, { recursive: true, force: true }));
  let count = 0;
  return {
    root,
    fresh: () => {
      const dir = join(root, `d${++count}`);
      mkdirSync(dir);
      return dir;
    },
  };
}
