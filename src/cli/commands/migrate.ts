import { closeSync, openSync } from "node:fs";
import type { Command } from "commander";
import { CURRENT_SESSION_VERSION } from "../../core/entry.js";
import { withExclusiveLock } from "../../file/flock.js";
import { fsckFile } from "../../file/fsck.js";
import { replaceKeepingBackup } from "../../file/rewrite.js";
import { SessionFile } from "../../file/session-file.js";
import { encodeSession } from "../../format/jsonl/encode.js";
import type { Cli } from "../cli.js";
import { errorCode } from "../exit.js";
import { startProgress } from "../io.js";
import { checkAll, expandTargets } from "../targets.js";
import { isFinding } from "./fsck.js";

interface MigrateOptions {
  all?: boolean;
  dryRun?: boolean;
}

type Outcome =
  | { path: string; status: "current"; version: number }
  | { path: string; status: "migrated" | "would_migrate"; from: number; backupPath: string | null }
  | { path: string; status: "refused"; from: number; reason: string }
  | { path: string; status: "failed"; code: string; reason: string };

export function register(program: Command, cli: Cli): void {
  program
    .command("migrate")
    .description(
      `rewrite older session files (v1, v2) as v${CURRENT_SESSION_VERSION}; the original is kept as <file>.v<N>.bak`,
    )
    .argument(
      "[targets...]",
      "sessions (id, prefix, file) or folders; default: the latest session of this directory",
    )
    .option("--all", "every session of the root")
    .option("-n, --dry-run", "say what would be migrated, write nothing")
    .action((targets: string[], options: MigrateOptions, command: Command) => {
      const ctx = cli.context(command);
      checkAll(options.all, targets);
      const files = expandTargets(ctx, targets, options.all === true);
      const outcomes: Outcome[] = [];
      const progress = startProgress(ctx.io, "Migrating", files.length);
      for (const path of files) {
        outcomes.push(migrateOne(path, options.dryRun === true));
        progress.tick();
      }
      progress.stop();
      if (outcomes.some((o) => o.status === "refused" || o.status === "failed")) ctx.findings();
      if (ctx.json) return ctx.printJson({ dryRun: options.dryRun === true, files: outcomes });
      const c = ctx.colors;
      for (const o of outcomes) {
        if (o.status === "current") ctx.print(`${c.green("current ")} ${o.path} ${c.dim(`(v${o.version})`)}`);
        else if (o.status === "migrated" || o.status === "would_migrate") {
          const kept = o.backupPath ? c.dim(` original kept at ${o.backupPath}`) : "";
          ctx.print(
            `${c.yellow(o.status === "migrated" ? "migrated" : "would migrate")} ${o.path} ${c.dim(`(v${o.from} → v${CURRENT_SESSION_VERSION})`)}${kept}`,
          );
        } else if ("reason" in o) ctx.print(`${c.red(o.status.padEnd(8))} ${o.path}: ${o.reason}`);
      }
    });
}

/**
 * Rewrites one file in the current format, under its lock. A file with damaged lines is refused:
 * rewriting would leave them out, which is `repair`'s job (it migrates too and lists what it drops).
 */
function migrateOne(path: string, dryRun: boolean): Outcome {
  try {
    const report = fsckFile(path);
    if (!report.header)
      return { path, status: "refused", from: report.version, reason: "not a session file (see fsck)" };
    if (report.version >= CURRENT_SESSION_VERSION)
      return { path, status: "current", version: report.version };
    const problems = report.issues.filter(isFinding);
    if (problems.length > 0) {
      return {
        path,
        status: "refused",
        from: report.version,
        reason: `${problems.length} issue(s); run \`sessiontree repair\`, which migrates too`,
      };
    }
    if (dryRun) return { path, status: "would_migrate", from: report.version, backupPath: null };
    const fd = openSync(path, "r+");
    try {
      const backupPath = withExclusiveLock(fd, () => {
        const file = SessionFile.open(path);
        file.close();
        return replaceKeepingBackup(
          path,
          encodeSession(file.header, file.tree.getStoredEntries()),
          `v${report.version}.bak`,
        );
      });
      return { path, status: "migrated", from: report.version, backupPath };
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    return { path, status: "failed", code: errorCode(error), reason: (error as Error).message };
  }
}
