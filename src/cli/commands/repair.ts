import type { Command } from "commander";
import { type RepairReport, repairFile } from "../../file/repair.js";
import type { Cli } from "../cli.js";
import { errorCode } from "../exit.js";
import { startProgress } from "../io.js";
import { checkAll, expandTargets } from "../targets.js";

interface RepairOptions {
  all?: boolean;
  dryRun?: boolean;
}

export function register(program: Command, cli: Cli): void {
  program
    .command("repair")
    .description("rewrite damaged session files as clean v3 files; the original is kept as <file>.bak-<time>")
    .argument(
      "[targets...]",
      "sessions (id, prefix, file) or folders; default: the latest session of this directory",
    )
    .option("--all", "every session of the root")
    .option("-n, --dry-run", "say what would change, write nothing")
    .action((targets: string[], options: RepairOptions, command: Command) => {
      const ctx = cli.context(command);
      checkAll(options.all, targets);
      const files = expandTargets(ctx, targets, options.all === true);
      const reports: RepairReport[] = [];
      const failures: Array<{ path: string; code: string; message: string }> = [];
      const progress = startProgress(ctx.io, "Repairing", files.length);
      for (const path of files) {
        try {
          reports.push(repairFile(path, { dryRun: options.dryRun }));
        } catch (error) {
          failures.push({ path, code: errorCode(error), message: (error as Error).message });
        }
        progress.tick();
      }
      progress.stop();
      // A dry run that finds work to do is a finding, as a failed repair is.
      if (failures.length > 0 || (options.dryRun && reports.some((r) => r.changed))) ctx.findings();
      if (ctx.json) return ctx.printJson({ dryRun: options.dryRun === true, files: reports, failures });
      const c = ctx.colors;
      for (const report of reports) {
        const verb = !report.changed
          ? c.green("clean   ")
          : options.dryRun
            ? c.yellow("would fix")
            : c.yellow("repaired");
        ctx.print(`${verb} ${report.path} ${c.dim(`(${report.entriesWritten} entries)`)}`);
        for (const action of report.actions) ctx.print(`     ${action.kind} ${c.dim(action.message)}`);
        if (report.backupPath) ctx.print(`     ${c.dim(`original kept at ${report.backupPath}`)}`);
      }
      for (const failure of failures) ctx.print(`${c.red("failed  ")} ${failure.path}: ${failure.message}`);
    });
}
