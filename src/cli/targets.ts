import { readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import type { CommandContext } from "./command-context.js";
import { UsageError } from "./exit.js";
import { allSessionFiles } from "./location.js";

/**
 * The files a checking command works on: each target is a folder (every .jsonl under it), a file,
 * or a session id / prefix; no target means every session of the location when `allByDefault`,
 * else the latest session of the current directory.
 */
export function expandTargets(
  ctx: CommandContext,
  targets: readonly string[],
  allByDefault: boolean,
): string[] {
  if (targets.length === 0)
    return allByDefault ? allSessionFiles(ctx.location) : [ctx.sessionPath(undefined)];
  const files = targets.flatMap((target) => {
    const path = resolve(ctx.io.cwd, target);
    const stat = statSync(path, { throwIfNoEntry: false });
    if (stat?.isDirectory()) return jsonlFilesUnder(path);
    return [ctx.sessionPath(target)];
  });
  return [...new Set(files)];
}

function jsonlFilesUnder(dir: string): string[] {
  const found = readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((d) =>
      d.isDirectory()
        ? jsonlFilesUnder(join(dir, d.name))
        : d.name.endsWith(".jsonl")
          ? [join(dir, d.name)]
          : [],
    );
  return found;
}

/** `--all` and explicit targets together are a contradiction. */
export function checkAll(all: boolean | undefined, targets: readonly string[]): void {
  if (all && targets.length > 0) throw new UsageError("Give targets or --all, not both");
}
