import { resolve } from "node:path";
import { NotFoundError } from "../../core/errors.js";
import { sessionDirFor } from "../../file/paths.js";
import { peekHeader } from "../../session/locate.js";
import { SessionManager } from "../../session/session-manager.js";
import type { CommandContext } from "../command-context.js";
import { resolveEntryId } from "../resolve.js";

export interface ForkOptions {
  at?: string;
  whole?: boolean;
  cwd?: string;
}

/** Writes the new session (one branch, or with `--whole` all of them) and says where it is. */
export function runFork(ctx: CommandContext, ref: string | undefined, options: ForkOptions): void {
  const source = ctx.sessionPath(ref);
  const root = ctx.location.root;
  const cwd = options.cwd ? resolve(ctx.io.cwd, options.cwd) : (peekHeader(source)?.cwd ?? ctx.io.cwd);
  // New sessions go to the location's folder for their directory, wherever the source was.
  const dir = sessionDirFor(root, cwd, ctx.location.layout);
  const created = options.whole
    ? SessionManager.forkFrom(source, cwd, dir, { root })
    : SessionManager.open(source, dir, cwd, { root });
  try {
    if (!options.whole) {
      const at = options.at === undefined ? created.getLeafId() : resolveEntryId(created.tree, options.at);
      if (at === null)
        throw new NotFoundError("entry_not_found", "The session is empty: there is no branch to extract");
      created.createBranchedSession(at);
    }
  } catch (error) {
    created.close();
    throw error;
  }
  const result = {
    sourceSessionId: peekHeader(source)?.id ?? null,
    sourcePath: source,
    sessionId: created.getSessionId(),
    path: created.getSessionFile(),
    cwd,
    entryCount: created.getEntries().length,
    leafId: created.getLeafId(),
  };
  created.close();
  if (ctx.json) {
    ctx.printJson(result);
    return;
  }
  ctx.print(
    `New session ${ctx.colors.bold(result.sessionId)} (${result.entryCount} entries)`,
    `  ${result.path}`,
    ctx.colors.dim(`  from session ${result.sourceSessionId ?? "(no header)"} · ${source}`),
  );
}
