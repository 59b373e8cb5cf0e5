import { statSync } from "node:fs";
import type { SessionIssue } from "../../core/issues.js";
import { type FileKindCode, inspectFile, refusalFor } from "../../file/file-kind.js";
import { type FsckReport, fsckFile, isFinding } from "../../file/fsck.js";
import type { SniffedFile } from "../../format/sniff.js";
import type { CommandContext } from "../command-context.js";
import { errorCode } from "../exit.js";
import { startProgress } from "../io.js";
import { expandTargets } from "../targets.js";

/** A file fsck will not read line by line (empty, another tool's session): one finding says why. */
interface KindFinding {
  code: FileKindCode;
  severity: "error";
  message: string;
  /** About the whole file, not one line. */
  line?: undefined;
  offset?: undefined;
}

type CheckedFile = Omit<FsckReport, "issues"> & {
  issues: Array<SessionIssue | KindFinding>;
  findings: number;
  /** What the file is when it is not a session: "a Claude Code session (15 records)". */
  kind?: SniffedFile["kind"];
  description?: string;
};

/** Checks every target file; any finding (or a file that could not be read) makes the exit status 1. */
export function runFsck(ctx: CommandContext, targets: string[], quiet: boolean): void {
  const files = expandTargets(ctx, targets, true);
  const reports: CheckedFile[] = [];
  const failures: Array<{ path: string; code: string; message: string }> = [];
  const progress = startProgress(ctx.io, "Checking", files.length);
  for (const path of files) {
    try {
      reports.push(check(path));
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

/**
 * One file: an empty file or another tool's session is one finding that says what it is (and to
 * import it), not a finding per line; anything else is read and checked line by line.
 */
function check(path: string): CheckedFile {
  const file = inspectFile(path);
  const refusal = refusalFor(path, file);
  if (file && refusal) {
    const finding: KindFinding = {
      code: refusal.code as FileKindCode,
      severity: "error",
      message: refusal.finding,
    };
    return {
      path,
      ok: false,
      bytes: statSize(path),
      header: null,
      version: file.kind === "pi" ? (file.version ?? 1) : 0,
      entries: 0,
      leafId: null,
      tornTail: null,
      issues: [finding],
      findings: 1,
      kind: file.kind,
      description: file.description,
    };
  }
  const report = fsckFile(path);
  const findings = report.issues.filter(isFinding).length + (report.ok ? 0 : report.header ? 0 : 1);
  if (report.header || !file) return { ...report, findings };
  return { ...report, findings, kind: file.kind, description: file.description };
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
      : `not a session: ${report.description ?? "no session header"}`;
    // Warnings alone (glued records, malformed entries kept) are findings, not damage.
    const status = report.findings === 0 ? c.green("ok  ") : report.ok ? c.yellow("warn") : c.red("FAIL");
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

function statSize(path: string): number {
  return statSync(path, { throwIfNoEntry: false })?.size ?? 0;
}
