import { existsSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { exportJson } from "../../format/export-json.js";
import { exportMarkdown } from "../../format/export-markdown.js";
import type { SessionManager } from "../../session/session-manager.js";
import { renderHtmlExport } from "../../viewer/html-export.js";
import type { CommandContext } from "../command-context.js";
import { UsageError } from "../exit.js";
import { resolveEntryId } from "../resolve.js";
import { readablePath } from "./file-kind.js";

export interface ExportOptions {
  format?: string;
  html?: boolean;
  md?: boolean;
  output?: string;
  at?: string;
  force?: boolean;
}

const FORMATS = ["md", "json", "html"] as const;
type Format = (typeof FORMATS)[number];

/** Renders the export and writes it to stdout or to `--output` (never over a file without `--force`). */
export async function runExport(
  ctx: CommandContext,
  ref: string | undefined,
  options: ExportOptions,
): Promise<void> {
  const format = formatOf(options, ctx.json);
  const { path, text, sessionId } = await ctx.withSession(
    readablePath(ctx, ref),
    (manager, path) => {
      const at = options.at === undefined ? manager.getLeafId() : resolveEntryId(manager.tree, options.at);
      return { path, text: render(manager, format, at), sessionId: manager.getSessionId() };
    },
    { whole: true },
  );
  if (!options.output) {
    ctx.io.out(text);
    return;
  }
  const target = resolve(ctx.io.cwd, options.output);
  if (existsSync(target) && !options.force)
    throw new UsageError(`${target} exists (use --force to overwrite)`);
  writeFileSync(target, text);
  if (ctx.json)
    return ctx.printJson({ sessionId, source: path, format, output: target, bytes: Buffer.byteLength(text) });
  ctx.print(`Wrote ${format} export of ${sessionId} to ${target}`);
}

function formatOf(options: ExportOptions, json: boolean): Format {
  const picked = [options.format, options.html ? "html" : undefined, options.md ? "md" : undefined].filter(
    Boolean,
  );
  if (new Set(picked).size > 1) throw new UsageError(`Choose one format, not ${picked.join(" and ")}`);
  const format = picked[0] ?? (json ? "json" : "md");
  const normal = format === "markdown" ? "md" : format;
  if (!FORMATS.includes(normal as Format))
    throw new UsageError(`Unknown format "${format}" (md, json, html)`);
  return normal as Format;
}

function render(manager: SessionManager, format: Format, at: string | null): string {
  const header = manager.getHeader();
  if (!header) throw new UsageError("The session has no header");
  const entries = manager.getEntries();
  const name = manager.getSessionName();
  const labels = manager.tree.getLabels();
  const path = at === null ? [] : manager.getBranch(at);
  if (format === "html") return renderHtmlExport({ header, entries, leafId: manager.getLeafId(), labels });
  if (format === "md") return exportMarkdown({ header, path, name, labels });
  const context = manager.buildSessionContextAt(at);
  const doc = exportJson({
    header,
    entries,
    leafId: manager.getLeafId(),
    name,
    labels,
    branch: path.map((e) => e.id),
    context,
  });
  return `${JSON.stringify(doc, null, 2)}\n`;
}
