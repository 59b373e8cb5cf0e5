import { type RepairReport, repairFile } from "../../file/repair.js";
import { peekHeader } from "../../session/locate.js";
import type { CommandContext } from "../command-context.js";
import { errorCode } from "../exit.js";
import { startProgress } from "../io.js";
import { checkAll, expandTargets } from "../targets.js";

export interface RepairCommandOptions {
  all?: boolean;
  dryRun?: boolean;
}

/** A file's report, and which session it is (the header's id after the repair; null without one). */
type Repaired = RepairReport & { sessionId: string | null };

interface Failure {
  sessionId: string | null;
  path: string;
  code: string;
  message: string;
}

/** Repairs each target; a failure, or a dry run that finds work to do, makes the exit status 1. */
export function runRepair(ctx: CommandContext, targets: string[], options: RepairCommandOptions): void {
  checkAll(options.all, targets);
  const files = expandTargets(ctx, targets, options.all === true);
  const reports: Repaired[] = [];
  const failures: Failure[] = [];
  const progress = startProgress(ctx.io, "Repairing", files.length);
  for (const path of files) {
    try {
      const report = repairFile(path, { dryRun: options.dryRun });
      reports.push({ sessionId: peekHeader(path)?.id ?? null, ...report });
    } catch (error) {
      const sessionId = peekHeader(path)?.id ?? null;
      failures.push({ sessionId, path, code: errorCode(error), message: (error as Error).message });
    }
    progress.tick();
  }
  progress.stop();
  if (failures.length > 0 || (options.dryRun && reports.some((r) => r.changed))) ctx.findings();
  if (ctx.json) {
    ctx.printJson({ dryRun: options.dryRun === true, files: reports, failures });
    return;
  }
  print(ctx, reports, failures, options.dryRun === true);
}

function print(ctx: CommandContext, reports: Repaired[], failures: Failure[], dryRun: boolean): void {
  const c = ctx.colors;
  for (const report of reports) {
    const verb = !report.changed
      ? c.green("clean   ")
      : dryRun
        ? c.yellow("would fix")
        : c.yellow("repaired");
    const session = `· session ${report.sessionId ?? "(no header)"}`;
    ctx.print(`${verb} ${report.path} ${c.dim(`(${report.entriesWritten} entries) ${session}`)}`);
    for (const action of report.actions) ctx.print(`     ${action.kind} ${c.dim(action.message)}`);
    if (report.carriedLines > 0)
      ctx.print(
        `     carried ${c.dim(`${report.carriedLines} line(s) another writer appended during the repair`)}`,
      );
    if (report.backupPath) ctx.print(`     ${c.dim(`original kept at ${report.backupPath}`)}`);
  }
  for (const failure of failures) ctx.print(`${c.red("failed  ")} ${failure.path}: ${failure.message}`);
}
