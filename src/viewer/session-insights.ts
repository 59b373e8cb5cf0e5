/**
 * The stats and the branch diff of an open session, as the viewer's panels read them: format's
 * `sessionStats` and `branchDiff` (what `sessiontree stats` and `diff` run) over a `LoadedSession`'s
 * tree. Pure, so the same code answers the local viewer's `/api/stats` and `/api/diff` on the
 * server and the service's diff (and the export's both) in the page.
 */
import { type BranchDiff, branchDiff } from "../format/branch-diff.js";
import { isImported, type SessionStats, sessionStats } from "../format/stats.js";
import type { LoadedSession } from "./loaded-session.js";

/**
 * One session's stats as `sessiontree stats <session> --json` and `GET /v1/sessions/{id}/stats`
 * answer them (less the CLI's file path and issues).
 */
export type SessionStatsAnswer = SessionStats & {
  sessionId: string;
  cwd: string;
  name: string | null;
  imported: boolean;
  leafId: string | null;
  since: string | null;
};

/** A branch diff as `sessiontree diff --json` answers it (less the file path). */
export type BranchDiffAnswer = BranchDiff & { sessionId: string; leafId: string | null };

/** Stats of a session, computed once per read of it (a kept session is asked again). */
const statsMade = new WeakMap<LoadedSession, SessionStatsAnswer>();

export function statsOf(loaded: LoadedSession): SessionStatsAnswer {
  const made = statsMade.get(loaded);
  if (made) return made;
  const { header } = loaded.shape;
  const imported = isImported(header);
  const answer: SessionStatsAnswer = {
    sessionId: header.id,
    cwd: header.cwd,
    name: loaded.shape.name ?? loaded.tree.getSessionName() ?? null,
    imported,
    leafId: loaded.tree.getLeafId(),
    since: null,
    ...sessionStats(loaded.tree, { imported }),
  };
  statsMade.set(loaded, answer);
  return answer;
}

/**
 * The branches to entries `a` and `b` compared (`b` defaults to the leaf). An id not in the session
 * is core's `NotFoundError("entry_not_found")`. `imported` overrides what the header says, for a
 * page whose header lacks it (the service's summary does not carry `importedFrom`).
 */
export function diffOf(
  loaded: LoadedSession,
  a: string,
  b: string | undefined,
  imported: boolean = isImported(loaded.shape.header),
): BranchDiffAnswer {
  const tree = loaded.tree;
  const leafId = tree.getLeafId();
  const other = b ?? leafId ?? tree.requireEntry(a).id;
  return { sessionId: loaded.shape.header.id, leafId, ...branchDiff(tree, a, other, { imported }) };
}
