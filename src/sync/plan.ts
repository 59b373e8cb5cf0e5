import type { SyncMark } from "../format/sync-digest.js";
import { changedSince, type LocalScan, type LocalSession } from "./scan.js";
import type { SessionSyncState } from "./state.js";

/**
 * One session a sync has to look at, and what it knows before asking the service about it.
 * - `onServer: "yes"`: the service has it (read its summary, pull what is new, push what it lacks);
 * - `"no"`: not yet, as far as this copy knows (create it there with the local header, then push);
 * - `"gone"`: it was there and is no longer (deleted on the service): never pushed back.
 */
export interface SessionWork {
  id: string;
  local: LocalSession | undefined;
  state: SessionSyncState | undefined;
  onServer: "yes" | "no" | "gone";
}

export interface SyncPlan {
  work: SessionWork[];
  /** Sessions deleted on the service that this copy keeps (skipped, reported). */
  gone: string[];
  /** State entries to forget: neither a local file nor a session on the service any more. */
  forget: string[];
}

/**
 * Which sessions need work. `remote` is every session's mark when the service's digest differed
 * from the copy's, or null when it was the same (then only local changes count). A session moved on
 * one side only is looked at once; a session unchanged on both sides is not looked at at all, unless
 * `everySession` (a leaf mode that moves leaves must read every session's leaf).
 */
export function planSync(
  scan: LocalScan,
  states: Readonly<Record<string, SessionSyncState>>,
  remote: readonly SyncMark[] | null,
  options: { everySession?: boolean } = {},
): SyncPlan {
  const marks = remote ? new Map(remote.map((mark) => [mark.id, mark])) : null;
  const plan: SyncPlan = { work: [], gone: [], forget: [] };
  for (const local of scan.sessions.values()) {
    const state = states[local.id];
    const mark = marks?.get(local.id);
    const onServer = whereIs(state, marks, mark);
    if (onServer === "gone") {
      plan.gone.push(local.id);
      if (!state?.gone) plan.work.push({ id: local.id, local, state, onServer });
      continue;
    }
    const remoteMoved = mark !== undefined && (!state || !sameMark(state, mark));
    if (changedSince(local, state) || remoteMoved || onServer === "no" || options.everySession)
      plan.work.push({ id: local.id, local, state, onServer });
  }
  // Sessions the service has and no local file holds: new there, or a local file that went away.
  const remoteIds = marks ? [...marks.keys()] : knownIds(states);
  for (const id of remoteIds) {
    if (scan.sessions.has(id)) continue;
    const state = states[id];
    if (state?.gone && !marks) continue;
    plan.work.push({ id, local: undefined, state, onServer: "yes" });
  }
  for (const [id, state] of Object.entries(states)) {
    if (scan.sessions.has(id)) continue;
    if (marks ? !marks.has(id) : state.gone || state.revision === 0) plan.forget.push(id);
  }
  return plan;
}

function whereIs(
  state: SessionSyncState | undefined,
  marks: ReadonlyMap<string, SyncMark> | null,
  mark: SyncMark | undefined,
): SessionWork["onServer"] {
  const wasThere = state !== undefined && state.revision > 0;
  if (marks === null) {
    if (state?.gone) return "gone";
    return wasThere ? "yes" : "no";
  }
  if (mark) return "yes";
  return wasThere || state?.gone ? "gone" : "no";
}

function sameMark(state: SessionSyncState, mark: SyncMark): boolean {
  return !state.gone && state.revision === mark.revision && state.entryCount === mark.entryCount;
}

function knownIds(states: Readonly<Record<string, SessionSyncState>>): string[] {
  return Object.entries(states)
    .filter(([, state]) => !state.gone && state.revision > 0)
    .map(([id]) => id);
}
