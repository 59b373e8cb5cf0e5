import { resolve } from "node:path";
import { type SearchHit, SNIPPET_MARK } from "../../core/search-hit.js";
import { searchLocalDetailed } from "../../session/search/index.js";
import type { CommandContext } from "../command-context.js";
import { type Colors, type Progress, startProgress } from "../io.js";
import { terminalSafe } from "../terminal-text.js";

export interface SearchOptions {
  all?: boolean;
  cwd?: string;
  limit?: number;
}

/**
 * Searches the sessions of the directory (or `--all`, pi's included with `--pi`) through the local
 * index and prints the hits, best first: a line of facts, then the snippet with the matches bold.
 */
export async function runSearch(ctx: CommandContext, words: string[], options: SearchOptions): Promise<void> {
  const cwd = options.cwd === undefined ? ctx.io.cwd : resolve(ctx.io.cwd, options.cwd);
  let progress: Progress | undefined;
  const result = searchLocalDetailed({
    query: words.join(" "),
    // The same files as `ls` (and `allSessionFiles`): every folder of the root, pi's included, or
    // the directory's folders, its sessions by their header.
    root: ctx.location.root,
    cwd: options.all ? undefined : cwd,
    limit: options.limit,
    onIndexing: (done, total) => {
      progress ??= startProgress(ctx.io, "Indexing sessions", total);
      if (done > 0) progress.tick();
      if (done === total) progress.stop();
    },
  });
  if (ctx.json) return ctx.printJson(result.hits);
  if (result.hits.length === 0) {
    const where = options.all ? `under ${ctx.location.root}` : `of ${cwd}; try --all`;
    ctx.print(`Nothing found for ${words.join(" ")} (sessions ${where})`);
  } else for (const hit of result.hits) ctx.print(...hitLines(ctx.colors, hit, ctx.io.columns));
  if (result.skipped.length > 0)
    ctx.io.err(
      ctx.colors.yellow(`${result.skipped.length} file(s) skipped: not sessions (no session header)\n`),
    );
}

/** A hit in two lines: when, which session, which entry, what kind, abandoned or not; the snippet. */
export function hitLines(c: Colors, hit: SearchHit, columns: number): string[] {
  const when = hit.timestamp.slice(0, 16).replace("T", " ");
  const session = terminalSafe(hit.sessionName ?? hit.sessionId.slice(0, 8));
  const branch = hit.branch === "abandoned" ? `  ${c.yellow("abandoned branch")}` : "";
  const head = `${c.dim(when)}  ${c.bold(session)}  ${c.cyan(terminalSafe(hit.entryId))}  ${hit.kind}${branch}`;
  return [head, `    ${marked(c, fitted(terminalSafe(hit.snippet), Math.max(40, columns - 4)))}`];
}

/** The snippet cut to the line, keeping its marks paired. */
function fitted(snippet: string, width: number): string {
  if (snippet.length <= width) return snippet;
  let cut = snippet.slice(0, width - 1);
  if (cut.lastIndexOf(SNIPPET_MARK.open) > cut.lastIndexOf(SNIPPET_MARK.close)) cut += SNIPPET_MARK.close;
  return `${cut}…`;
}

/** The marked words in bold (plain without colours: the marks are dropped either way). */
function marked(c: Colors, snippet: string): string {
  const { open, close } = SNIPPET_MARK;
  return snippet.replace(new RegExp(`${open}([^${close}]*)${close}`, "g"), (_, word: string) =>
    c.bold(c.yellow(word)),
  );
}
