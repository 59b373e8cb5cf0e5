import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { newSessionId } from "../../core/session-id.js";
import { sessionDirFor, sessionFileName } from "../../file/paths.js";
import { SessionFile } from "../../file/session-file.js";
import type { CommandContext } from "../command-context.js";
import { errorCode, UsageError } from "../exit.js";
import { startProgress } from "../io.js";
import { allSessionFiles, idFromFileName } from "../location.js";
import { appendNewEntries } from "./import-append.js";
import {
  type Converted,
  convert,
  IMPORT_FORMATS,
  type ImportFormat,
  ImportRefusal,
} from "./import-convert.js";

export interface ImportOptions {
  cwd?: string;
  format?: string;
  newId?: boolean;
}

/** What `import --json` prints: one list per outcome. */
interface ImportResult {
  imported: Array<Record<string, unknown>>;
  /** Sessions imported before whose source grew: its new entries were appended. */
  appended: Array<Record<string, unknown>>;
  skipped: Array<Record<string, unknown>>;
  failed: Array<Record<string, unknown>>;
}

/**
 * Imports each file. A session imported before gets the entries its source gained since (ids are
 * stable); one with nothing new is skipped. Reports what was imported, appended, skipped or failed.
 */
export function runImport(ctx: CommandContext, paths: string[], options: ImportOptions): void {
  const format = formatOf(options.format);
  const files = paths.flatMap((p) => expand(resolve(ctx.io.cwd, p)));
  const existing = new Map<string, string>();
  for (const path of allSessionFiles(ctx.location)) {
    const id = idFromFileName(path);
    if (id !== undefined) existing.set(id, path);
  }
  const result: ImportResult = { imported: [], appended: [], skipped: [], failed: [] };
  const progress = startProgress(ctx.io, "Importing", files.length, 20);
  for (const source of files) {
    importOne(ctx, source, { ...options, format }, existing, result);
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

function formatOf(option: string | undefined): ImportFormat {
  const format = option === "claude-code" ? "claude" : (option ?? "auto");
  if (!(IMPORT_FORMATS as readonly string[]).includes(format))
    throw new UsageError(`Unknown format "${option}" (${IMPORT_FORMATS.join(", ")})`);
  return format as ImportFormat;
}

function importOne(
  ctx: CommandContext,
  source: string,
  options: ImportOptions & { format: ImportFormat },
  existing: Map<string, string>,
  result: ImportResult,
): void {
  try {
    const converted = convert(readFileSync(source, "utf8"), options.format, basename(source));
    if (options.newId) converted.header.id = newSessionId();
    const { format, header, entries, problems, claude, codex, issues } = converted;
    const facts = { source, format, sessionId: header.id, problems, report: claude ?? codex, issues };
    const there = existing.get(header.id);
    if (there !== undefined) {
      if (reimport(source, there, converted, result) && problems > 0) ctx.findings();
      return;
    }
    const path = write(ctx, converted, options.cwd);
    if (problems > 0) ctx.findings();
    existing.set(header.id, path);
    result.imported.push({ ...facts, path, entryCount: entries.length });
  } catch (error) {
    ctx.findings();
    const code = error instanceof ImportRefusal ? error.code : errorCode(error);
    result.failed.push({ source, code, message: (error as Error).message });
  }
}

/**
 * A session already there: append what its source gained, or say why nothing was written. True
 * when something was appended.
 */
function reimport(source: string, path: string, converted: Converted, result: ImportResult): boolean {
  const sessionId = converted.header.id;
  const skip = (reason: string, message: string) => {
    result.skipped.push({ source, sessionId, path, reason, message });
    return false;
  };
  if (!converted.stableIds)
    return skip("already_imported", "already imported (a v1 file has no entry ids to append by)");
  const outcome = appendNewEntries(path, converted);
  if (outcome.status === "unchanged") return skip("already_imported", "already imported, nothing new");
  if (outcome.status === "ids_changed")
    return skip(
      "ids_changed",
      "a session with this id is there, but with none of these entries (use --new-id to import a copy)",
    );
  const { format, problems, claude, codex, issues } = converted;
  result.appended.push({
    source,
    format,
    sessionId,
    path,
    appended: outcome.appended,
    renamed: outcome.renamed,
    problems,
    report: claude ?? codex,
    issues,
  });
  return true;
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
  const problemsOf = (item: Record<string, unknown>) =>
    Number(item.problems) > 0 ? c.yellow(` — ${item.problems} line(s) not imported, see --json`) : "";
  for (const item of result.imported) {
    ctx.print(
      `${c.green("imported")} ${item.format} ${item.source}`,
      `   → ${c.bold(String(item.sessionId))} ${item.entryCount} entries ${c.dim(String(item.path))}${problemsOf(item)}`,
    );
  }
  for (const item of result.appended) {
    const renamed = item.renamed ? ", renamed" : "";
    ctx.print(
      `${c.green("updated")} ${item.format} ${item.source}`,
      `   → ${c.bold(String(item.sessionId))} appended ${item.appended} entries${renamed} ${c.dim(String(item.path))}${problemsOf(item)}`,
    );
  }
  for (const item of result.skipped) {
    ctx.print(`${c.dim("skipped")} ${item.source}: session ${item.sessionId} ${item.message}`);
  }
  for (const item of result.failed) {
    ctx.print(`${c.red("failed")} ${item.source}: ${item.message}`);
  }
  const { imported, appended, skipped, failed } = result;
  ctx.print(
    c.dim(
      `${total} file(s): ${imported.length} imported, ${appended.length} updated, ${skipped.length} skipped, ${failed.length} failed`,
    ),
  );
}
