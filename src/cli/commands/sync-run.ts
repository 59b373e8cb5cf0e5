import { SessionTreeClient } from "../../client/client.js";
import { countingFetch, type TransferCount } from "../../sync/counting-fetch.js";
import { resolveLogin } from "../../sync/credentials.js";
import { LEAF_MODES, type LeafMode } from "../../sync/leaf.js";
import type { SessionReport } from "../../sync/session-sync.js";
import { type SyncOptions, type SyncReport, syncRoot } from "../../sync/sync.js";
import { watchSync } from "../../sync/watch.js";
import type { CommandContext } from "../command-context.js";
import { UsageError } from "../exit.js";
import { type Progress, startProgress } from "../io.js";
import type { SyncFlags } from "./sync.js";

/** One sync (or, with --watch, one after another), reported for people or as JSON. */
export async function runSync(ctx: CommandContext, flags: SyncFlags): Promise<void> {
  if (!(LEAF_MODES as readonly string[]).includes(flags.leaf))
    throw new UsageError(`--leaf ${flags.leaf}: one of ${LEAF_MODES.join(", ")}`);
  if (flags.watch && flags.dryRun) throw new UsageError("Give either --watch or --dry-run, not both");
  const login = resolveLogin(flags.server, ctx.io.env);
  if ("missing" in login) {
    throw new UsageError(
      login.missing === "server"
        ? "No service: give --server URL, set SESSIONTREE_SERVER, or run `sessiontree login --server URL`"
        : `No key for ${login.server}: set SESSIONTREE_API_KEY or run \`sessiontree login --server ${login.server}\``,
    );
  }
  const counted = countingFetch();
  const remote = new SessionTreeClient({ baseUrl: login.server, token: login.key, fetch: counted.fetch });
  const options: SyncOptions = {
    root: ctx.location.root,
    layout: ctx.location.layout,
    remote,
    server: login.server,
    credentialId: login.credentialId,
    leaf: flags.leaf as LeafMode,
    dryRun: flags.dryRun === true,
    rateLimit: {
      onWait: ({ seconds, retry, maxRetries }) =>
        ctx.io.err(`rate limited by the service: waiting ${seconds} s (retry ${retry} of ${maxRetries})\n`),
    },
  };
  if (flags.watch) return watch(ctx, options, flags.interval, counted.count);
  const progress = progressBar(ctx);
  let report: SyncReport;
  try {
    report = await syncRoot({ ...options, onProgress: progress.tick });
  } finally {
    progress.stop();
  }
  print(ctx, report, counted.count);
  if (report.errors > 0) ctx.findings();
}

/** A bar on stderr once the number of sessions to look at is known and worth one. */
function progressBar(ctx: CommandContext): { tick(done: number, total: number): void; stop(): void } {
  let bar: Progress | undefined;
  return {
    tick: (done, total) => {
      bar ??= startProgress(ctx.io, "Syncing", total, 20);
      bar.tick();
      if (done === total) bar.stop();
    },
    stop: () => bar?.stop(),
  };
}

async function watch(ctx: CommandContext, options: SyncOptions, seconds: number, count: TransferCount) {
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    await watchSync(options, {
      intervalMs: seconds * 1000,
      signal: stop.signal,
      onReport: (report) => {
        if (report.changed.length > 0 || report.errors > 0) print(ctx, report, count);
      },
      onError: (error) =>
        ctx.io.err(`sync failed: ${error instanceof Error ? error.message : String(error)}\n`),
    });
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

function print(ctx: CommandContext, report: SyncReport, count: TransferCount): void {
  const bytes = { requests: count.requests, sent: count.sent, received: count.received };
  if (ctx.json) {
    ctx.io.out(`${JSON.stringify({ ...report, bytes })}\n`);
    return;
  }
  const c = ctx.colors;
  for (const session of report.changed) ctx.print(describe(ctx, session));
  for (const dup of report.duplicates)
    ctx.print(c.yellow(`  ${dup.path}: holds session ${dup.id} again (synced from ${dup.kept}); left out`));
  const verb = report.dryRun ? "would push" : "pushed";
  ctx.print(
    `${report.sessions} session(s) compared, ${report.changed.length} changed: ${verb} ${report.pushed} entr${report.pushed === 1 ? "y" : "ies"}, ` +
      `${report.dryRun ? "would pull" : "pulled"} ${report.pulled}` +
      c.dim(` · ${bytes.requests} request(s), ${bytes.sent} B sent, ${bytes.received} B received`),
  );
  // Counted from here on: in --watch, each report shows what its own run moved.
  count.requests = 0;
  count.sent = 0;
  count.received = 0;
}

function describe(ctx: CommandContext, s: SessionReport): string {
  const c = ctx.colors;
  const what: string[] = [];
  if (s.created === "remote") what.push("new on the service");
  if (s.created === "local") what.push("new here");
  if (s.pushed > 0) what.push(`↑${s.pushed}`);
  if (s.pulled > 0) what.push(`↓${s.pulled}`);
  if (s.localLeaf) what.push(`leaf here → ${s.localLeaf.to ?? "(root)"}`);
  if (s.remoteLeaf) what.push(`leaf there → ${s.remoteLeaf.to ?? "(root)"}`);
  if (s.gone) what.push(c.yellow("deleted on the service: kept here, not pushed"));
  if (s.conflicts) what.push(c.yellow(`${s.conflicts.length} id(s) with other content on the service`));
  if (s.error) what.push(c.red(`${s.error.code}: ${s.error.message}`));
  return `  ${s.id}  ${what.join(", ")}`;
}
