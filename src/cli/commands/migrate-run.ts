import { CURRENT_SESSION_VERSION } from "../../core/entry.js";
import { type MigrateReport, migrateFile } from "../../file/migrate.js";
import { peekHeader } from "../../session/locate.js";
import type { CommandContext } from "../command-context.js";
import { errorCode } from "../exit.js";
import { startProgress } from "../io.js";
import { checkAll, expandTargets } from "../targets.js";
import type { MigrateOptions } from "./migrate.js";

type FileOutcome =
  | { path: string; status: "current"; version: number }
  | { path: string; status: "migrated" | "would_migrate"; from: number; backupPath: string | null }
  | { path: string; status: "refused"; from: number; reason: string }
  | { path: string; status: "failed"; code: string; reason: string };

/** What became of one file, and which session it is (its header's id; null without one). */
type Outcome = FileOutcome & { sessionId: string | null };

/** Migrates every target file and says what became of each; a refusal or failure exits 1. */
export function runMigrate(ctx: CommandContext, targets: string[], options: MigrateOptions): void {
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
  if (ctx.json) {
    ctx.printJson({ dryRun: options.dryRun === true, files: outcomes });
    return;
  }
  const c = ctx.colors;
  for (const o of outcomes) {
    const session = c.dim(`· session ${o.sessionId ?? "(no header)"}`);
    if (o.status === "current")
      ctx.print(`${c.green("current ")} ${o.path} ${c.dim(`(v${o.version})`)} ${session}`);
    else if (o.status === "migrated" || o.status === "would_migrate") {
      const kept = o.backupPath ? c.dim(` original kept at ${o.backupPath}`) : "";
      ctx.print(
        `${c.yellow(o.status === "migrated" ? "migrated" : "would migrate")} ${o.path} ${c.dim(`(v${o.from} → v${CURRENT_SESSION_VERSION})`)}${kept} ${session}`,
      );
    } else if ("reason" in o) ctx.print(`${c.red(o.status.padEnd(8))} ${o.path}: ${o.reason} ${session}`);
  }
}

/**
 * Rewrites one file in the current format (`migrateFile`: under its lock, original kept). A file
 * with damaged lines is refused: rewriting would leave them out, which is `repair`'s job (it
 * migrates too and lists what it drops).
 */
function migrateOne(path: string, dryRun: boolean): Outcome {
  let outcome: FileOutcome;
  try {
    outcome = outcomeOf(migrateFile(path, { dryRun }));
  } catch (error) {
    outcome = { path, status: "failed", code: errorCode(error), reason: (error as Error).message };
  }
  return { sessionId: peekHeader(path)?.id ?? null, ...outcome };
}

function outcomeOf(report: MigrateReport): FileOutcome {
  const { path, from, outcome } = report;
  switch (outcome) {
    case "current":
      return { path, status: "current", version: from };
    case "migrated":
    case "would_migrate":
      return { path, status: outcome, from, backupPath: report.backupPath };
    case "not_a_session":
      return { path, status: "refused", from, reason: "not a session file (see fsck)" };
    case "damaged":
      return {
        path,
        status: "refused",
        from,
        reason: `${report.findings.length} issue(s); run \`sessiontree repair\`, which migrates too`,
      };
  }
}
