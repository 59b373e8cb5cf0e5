import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

let cached: string | undefined;

/**
 * This package's version, from its package.json: found by walking up from this module, so it is
 * the same from src/, dist/ and the bundled command.
 */
export function packageVersion(): string {
  cached ??= findVersion(dirname(fileURLToPath(import.meta.url)));
  return cached;
}

function findVersion(start: string): string {
  for (let dir = start, up = 0; up < 6; dir = dirname(dir), up++) {
    try {
      const meta = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
        name?: string;
        version?: string;
      };
      if (meta.name === "sessiontree" && typeof meta.version === "string") return meta.version;
    } catch {
      // No package.json here: look one folder up.
    }
  }
  return "unknown";
}
