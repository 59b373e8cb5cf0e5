import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import type { SessionEntry, SessionHeader } from "../../core/entry.js";
import type { SessionIssue } from "../../core/issues.js";
import { newSessionId } from "../../core/session-id.js";
import { sessionDirFor, sessionFileName } from "../../file/paths.js";
import { SessionFile } from "../../file/session-file.js";
import { type ClaudeImportReport, importClaudeCode, looksLikeClaudeCode } from "../../format/claude-code.js";
import { decodeSession } from "../../format/jsonl/decode.js";
import type { CommandContext } from "../command-context.js";
import { errorCode, UsageError } from "../exit.js";
import { startProgress } from "../io.js";
import { allSessionFiles, idFromFileName } from "../location.js";

export interface ImportOptions {
  cwd?: string;
  format?: string;
  newId?: boolean;
}

/** What `import --json` prints: one list per outcome. */
interface ImportResult {
  imported: Array<Record<string, unknown>>;
  skipped: Array<Record<string, unknown>>;
  failed: Array<Record<string, unknown>>;
}

interface Converted {
  format: "pi" | "claude-code";
  header: SessionHeader;
  entries: SessionEntry[];
  /** Lines the source had that the session does not: reported, and the exit status says so. */
  problems: number;
  claude?: ClaudeImportReport;
  issues?: SessionIssue[];
}

/** Imports each file (skipping sessions already there) and reports what was imported, skipped or failed. */
export function runImport(ctx: CommandContext, paths: string[], options: ImportOptions): void {
  if (!["auto", "claude", "pi"].includes(options.format ?? "auto"))
    throw new UsageError(`Unknown format "${options.format}"`);
  const files = paths.flatMap((p) => expand(resolve(ctx.io.cwd, p)));
  const existing = new Set(allSessionFiles(ctx.location).map((f) => idFromFileName(f)));
  const result: ImportResult = { imported: [], skipped: [], failed: [] };
  const progress = startProgress(ctx.io, "Importing", files.length, 20);
  for (const source of files) {
    importOne(ctx, source, options, existing, result);
    progress.tick();
  }
  progress.stop();
  if (files.length === 0) ctx.findings();
  if (ctx.json) {
    ctx.printJson(result);
    return;
  }
  printResult(ctx, result, files.length);
}

function importOne(
  ctx: CommandContext,
  source: string,
  options: ImportOptions,
  existing: Set<string | undefined>,
  result: ImportResult,
): void {
  try {
    const converted = convert(readFileSync(source, "utf8"), options.format ?? "auto");
    if (options.newId) converted.header.id = newSessionId();
    if (existing.has(converted.header.id)) {
      result.skipped.push({ source, sessionId: converted.header.id, reason: "already_imported" });
      return;
    }
    const path = write(ctx, converted, options.cwd);
    existing.add(converted.header.id);
    if (converted.problems > 0) ctx.findings();
    const { format, header, entries, problems, claude, issues } = converted;
    result.imported.push({
      source,
      format,
      sessionId: header.id,
      path,
      entryCount: entries.length,
      problems,
      report: claude,
      issues,
    });
  } catch (error) {
    ctx.findings();
    result.failed.push({ source, code: errorCode(error), message: (error as Error).message });
  }
}

/** A file, or every .jsonl file under a folder (Claude Code keeps subagent files in subfolders). */
function expand(path: string): string[] {
  if (!statSync(path, { throwIfNoEntry: false })) throw new UsageError(`No such file or folder: ${path}`);
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((d) =>
      d.isDirectory() ? expand(join(path, d.name)) : d.name.endsWith(".jsonl") ? [join(path, d.name)] : [],
    );
}

function convert(text: string, format: string): Converted {
  if (text.trim() === "") throw new ImportError("The file is empty");
  const claude = format === "claude" || (format === "auto" && looksLikeClaudeCode(text));
  if (claude) {
    const { header, entries, report } = importClaudeCode(text);
    if (entries.length === 0)
      throw new ImportError(`No Claude Code records (${report.skipped.length} unreadable lines)`);
    return { format: "claude-code", header, entries, problems: report.skipped.length, claude: report };
  }
  const decoded = decodeSession(text);
  if (!decoded.header)
    throw new ImportError("Neither a pi session (no session header) nor a Claude Code session");
  const entries = decoded.entries.map((e) => e.entry);
  return {
    format: "pi",
    header: decoded.header,
    entries,
    problems: decoded.issues.length,
    issues: decoded.issues,
  };
}

class ImportError extends Error {}

function write(ctx: CommandContext, converted: Converted, cwdOption: string | undefined): string {
  const { header } = converted;
  const cwd = cwdOption ? resolve(ctx.io.cwd, cwdOption) : header.cwd || ctx.io.cwd;
  header.cwd = cwd;
  const path = join(
    sessionDirFor(ctx.location.root, cwd, ctx.location.layout),
    sessionFileName(header.timestamp, header.id),
  );
  SessionFile.create(path, header, converted.entries).close();
  return path;
}

function printResult(ctx: CommandContext, result: ImportResult, total: number): void {
  const c = ctx.colors;
  for (const item of result.imported) {
    const problems =
      Number(item.problems) > 0 ? c.yellow(` — ${item.problems} line(s) not imported, see --json`) : "";
    ctx.print(
      `${c.green("imported")} ${item.format} ${item.source}`,
      `   → ${c.bold(String(item.sessionId))} ${item.entryCount} entries ${c.dim(String(item.path))}${problems}`,
    );
  }
  for (const item of result.skipped) {
    ctx.print(`${c.dim("skipped")} ${item.source}: session ${item.sessionId} is already there`);
  }
  for (const item of result.failed) {
    ctx.print(`${c.red("failed")} ${item.source}: ${item.message}`);
  }
  ctx.print(
    c.dim(
      `${total} file(s): ${result.imported.length} imported, ${result.skipped.length} skipped, ${result.failed.length} failed`,
    ),
  );
}
