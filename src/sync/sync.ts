import { SessionTreeApiError } from "../client/errors.js";
import { detectLayout, type Layout } from "../file/paths.js";
import { syncDigest } from "../format/sync-digest.js";
import type { LeafMode } from "./leaf.js";
import { planSync } from "./plan.js";
import { type RateLimitPolicy, retryingOnRateLimit } from "./rate-limit-retry.js";
import { scanRoot } from "./scan.js";
import { type SessionReport, type SyncRemote, syncSession } from "./session-sync.js";
import { knownMarks, loadSyncState, lockSyncState, saveSyncState, syncStatePath } from "./state.js";

export interface SyncOptions {
  /** The local root: ours (`~/.sessiontree`) or a pi agent directory. */
  root: string;
  /** Default: the root's own (file/paths.ts `detectLayout`), for the files of pulled sessions. */
  layout?: Layout;
  remote: SyncRemote;
  /** The service's URL and the credential's public id: which state file is this pair's. */
  server: string;
  credentialId: string;
  /** @default "auto" */
  leaf?: LeafMode;
  /** Say what would be sent and written; send and write nothing, save no state. */
  dryRun?: boolean;
  /** Called after each session looked at. */
  onProgress?: (done: number, total: number) => void;
  /** Default: in the private cache directory (state.ts `syncStatePath`). */
  statePath?: string;
  /**
   * A 429 is waited out (its `Retry-After`) and the call retried, a bounded number of times, before
   * it ends the run; `onWait` hears of each wait (the CLI prints a line).
   */
  rateLimit?: RateLimitPolicy;
}

export interface SyncReport {
  /** Sessions whose marks and files were compared (one request whatever their number). */
  sessions: number;
  /** Sessions looked at one by one (changed on a side), and what was done to each. */
  changed: SessionReport[];
  pushed: number;
  pulled: number;
  /** Sessions deleted on the service, kept here and not pushed back. */
  gone: string[];
  /** Files holding an id another file holds: left out. */
  duplicates: Array<{ id: string; path: string; kept: string }>;
  errors: number;
  dryRun: boolean;
}

/** Saved at most this often during a long sync (and at its end): a crash redoes at most that much. */
const SAVE_EVERY_MS = 1000;

/**
 * Syncs a local root with the service, both ways. The cheap comparison first: the local files are
 * stat'ed against the saved state, and one request compares the digest of what this copy last saw
 * of the service with the service's own; only sessions that moved on either side are then looked
 * at (session-sync.ts). A session that fails is reported and the others go on; a dropped
 * connection, or server errors on three sessions in a row, end the run (the state saved so far is
 * kept, and the next run resumes there).
 */
export async function syncRoot(options: SyncOptions): Promise<SyncReport> {
  const dryRun = options.dryRun === true;
  const statePath = options.statePath ?? syncStatePath(options.root, options.server, options.credentialId);
  const unlock = dryRun ? () => {} : lockSyncState(statePath);
  try {
    const state = loadSyncState(statePath, options.server);
    const scan = scanRoot(options.root, state.sessions);
    const remote = retryingOnRateLimit(options.remote, options.rateLimit);
    const answer = await remote.syncState(syncDigest(knownMarks(state)));
    const everySession = (options.leaf ?? "auto") !== "auto";
    const plan = planSync(scan, state.sessions, answer.sessions ?? null, { everySession });
    const report: SyncReport = {
      sessions: Math.max(scan.sessions.size, answer.sessions?.length ?? 0),
      changed: [],
      pushed: 0,
      pulled: 0,
      gone: plan.gone,
      duplicates: scan.duplicates,
      errors: 0,
      dryRun,
    };
    for (const id of plan.forget) delete state.sessions[id];
    const sessionOptions = {
      remote,
      root: options.root,
      layout: options.layout ?? detectLayout(options.root),
      leaf: options.leaf ?? "auto",
      dryRun,
    };
    let savedAt = Date.now();
    const save = () => {
      if (!dryRun) saveSyncState(statePath, state);
      savedAt = Date.now();
    };
    let serverErrorsInARow = 0;
    try {
      for (const [i, work] of plan.work.entries()) {
        let result: Awaited<ReturnType<typeof syncSession>>;
        try {
          result = await syncSession(work, sessionOptions);
        } catch (error) {
          serverErrorsInARow = isServerError(error) ? serverErrorsInARow + 1 : 0;
          if (endsTheRun(error) || serverErrorsInARow === SERVER_ERRORS_ENDING_THE_RUN) throw error;
          report.errors++;
          report.changed.push(failed(work.id, work.local?.path ?? null, error));
          continue;
        }
        serverErrorsInARow = 0;
        record(report, result.report);
        if (result.state) state.sessions[work.id] = result.state;
        else delete state.sessions[work.id];
        if (Date.now() - savedAt >= SAVE_EVERY_MS) save();
        options.onProgress?.(i + 1, plan.work.length);
      }
    } finally {
      save();
    }
    return report;
  } finally {
    unlock();
  }
}

function record(report: SyncReport, session: SessionReport): void {
  report.pushed += session.pushed;
  report.pulled += session.pulled;
  const moved =
    session.pushed + session.pulled > 0 || session.created || session.localLeaf || session.remoteLeaf;
  if (moved || session.gone || session.conflicts) report.changed.push(session);
}

/**
 * The service unreachable (fetch rejects with a TypeError), the credential refused, the rate limit
 * still reached after the retries, the service unavailable (503): no use trying the next session.
 * Anything else is about one session (its file, its data, its header, a quota its growth would
 * pass: the next session may only pull) and is reported with it. So is another server error (a
 * 500), which may be about that session's data alone (a damaged payload in the service's storage):
 * ending the run there would keep every later session from syncing, run after run.
 */
function endsTheRun(error: unknown): boolean {
  if (error instanceof SessionTreeApiError) {
    if (error.code === "quota_exceeded") return false;
    return error.status === 401 || error.status === 403 || error.status === 429 || error.status === 503;
  }
  return error instanceof TypeError;
}

/** Server errors in a row (no session synced between them) that end the run: the service is failing. */
const SERVER_ERRORS_ENDING_THE_RUN = 3;

function isServerError(error: unknown): boolean {
  return error instanceof SessionTreeApiError && error.status >= 500;
}

function failed(id: string, path: string | null, error: unknown): SessionReport {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  return {
    id,
    path,
    pushed: 0,
    pulled: 0,
    created: null,
    error: { code: typeof code === "string" ? code : "internal", message },
  };
}
