import { type FsckReport, fsckFile, isFinding } from "../../file/fsck.js";
import type { CommandContext } from "../command-context.js";
import { errorCode } from "../exit.js";
import { startProgress } from "../io.js";
import { expandTargets } from "../targets.js";

type CheckedFile = FsckReport & { findings: number };

/** Checks every target file; any finding (or a file that could not be read) makes the exit status 1. */
export function runFsck(ctx: CommandContext, targets: string[], quiet: boolean): void {
  const files = expandTargets(ctx, targets, true);
  const reports: CheckedFile[] = [];
  const failures: Array<{ path: string; code: string; message: string }> = [];
  const progress = startProgress(ctx.io, "Checking", files.length);
  for (const path of files) {
    try {
      const report = fsckFile(path);
      const findings = report.issues.filter(isFinding).length + (report.ok ? 0 : report.header ? 0 : 1);
      reports.push({ ...report, findings });
    } catch (error) {
      failures.push({ path, code: errorCode(error), message: (error as Error).message });
    }
    progress.tick();
  }
  progress.stop();
  const bad = reports.filter((r) => r.findings > 0).length + failures.length;
  if (bad > 0) ctx.findings();
  if (ctx.json) {
    ctx.printJson({ checked: files.length, withFindings: bad, files: reports, failures });
    return;
  }
  print(ctx, reports, failures, quiet);
}

function print(
  ctx: CommandContext,
  reports: CheckedFile[],
  failures: Array<{ path: string; message: string }>,
  quiet: boolean,
): void {
  const c = ctx.colors;
  for (const report of reports) {
    if (report.findings === 0 && quiet) continue;
    const what = report.header
      ? `${report.entries} entries, v${report.version}`
      : report.bytes === 0
        ? "empty file, not a session"
        : "not a session";
    const status = report.findings > 0 ? c.red("FAIL") : c.green("ok  ");
    ctx.print(`${status} ${report.path} ${c.dim(`(${what})`)}`);
    for (const issue of report.issues) {
      const place =
        issue.line !== undefined
          ? `line ${issue.line}${issue.offset !== undefined ? ` @${issue.offset}` : ""}`
          : "";
      const sev =
        issue.severity === "error"
          ? c.red(issue.code)
          : issue.severity === "warning"
            ? c.yellow(issue.code)
            : c.dim(issue.code);
      ctx.print(`     ${sev} ${c.dim(place)} ${issue.message}`);
    }
  }
  for (const failure of failures) ctx.print(`${c.red("FAIL")} ${failure.path} ${failure.message}`);
  const bad = reports.filter((r) => r.findings > 0).length + failures.length;
  const total = reports.length + failures.length;
  ctx.print(
    bad > 0
      ? c.red(`${bad} of ${total} file(s) with findings`)
      : c.green(`${total} file(s) checked, no findings`),
  );
}
