import { join } from "node:path";
import { sameContent } from "../core/canonical-json.js";
import type { SessionEntry, SessionHeader } from "../core/entry.js";
import { SessionTree } from "../core/tree.js";
import { type Layout, sessionDirFor, sessionFileName } from "../file/paths.js";
import { SessionFile } from "../file/session-file.js";
import { fileLeaf, type LeafMode, localLeafAfterPull } from "./leaf.js";

/** What writing the service's entries into a local file did. */
export interface PullOutcome {
  /** Entries new to the file, now in it. */
  written: number;
  /** Ids the file holds with other content than the service's: kept as they are, reported. */
  conflicts: string[];
  /** The file's leaf before and after (a leaf marker was written when it had to stay or move). */
  leafBefore: string | null;
  leafAfter: string | null;
}

/**
 * Appends to a local session file the entries of `remote` (the service's, in its storage order,
 * parents first) that it lacks, under the file's lock after catching up with other writers (pi, an
 * agent), so nothing is written twice. They join the tree without moving the file's leaf; the leaf
 * then goes where `mode` says (see `localLeafAfterPull`), and when the last line written is not
 * that leaf a leaf marker is appended under it, so pi (last line = leaf) and sessiontree open the
 * file at the same place. With `dryRun` only counts.
 */
export function pullIntoFile(
  file: SessionFile,
  remote: readonly SessionEntry[],
  remoteLeaf: string | null,
  mode: LeafMode,
  dryRun: boolean,
): PullOutcome {
  if (dryRun) return countOnly(file.tree, remote, remoteLeaf, mode);
  let outcome: PullOutcome | undefined;
  file.write((tree) => {
    const leafBefore = fileLeaf(tree);
    const { fresh, conflicts } = loadFresh(tree, remote);
    const leafAfter = localLeafAfterPull(mode, tree, leafBefore, remoteLeaf);
    outcome = { written: fresh.length, conflicts, leafBefore, leafAfter };
    return withLeaf(tree, fresh, leafBefore, leafAfter);
  });
  if (!outcome) throw new Error("the write did not run");
  return outcome;
}

/** A session the service has and this copy does not: a new file, in the root's layout, written at once. */
export function createFromRemote(
  root: string,
  layout: Layout,
  header: SessionHeader,
  remote: readonly SessionEntry[],
  remoteLeaf: string | null,
): { path: string; written: number } {
  const cwd = typeof header.cwd === "string" ? header.cwd : "";
  const path = join(sessionDirFor(root, cwd, layout), sessionFileName(header.timestamp, header.id));
  const tree = new SessionTree();
  const { fresh } = loadFresh(tree, remote);
  const leaf = remoteLeaf !== null && tree.getEntry(remoteLeaf) ? remoteLeaf : fileLeaf(tree);
  const lines = withLeaf(tree, fresh, fileLeaf(tree), leaf);
  SessionFile.create(path, header, lines).close();
  return { path, written: fresh.length };
}

function loadFresh(tree: SessionTree, remote: readonly SessionEntry[]) {
  const fresh: SessionEntry[] = [];
  const conflicts: string[] = [];
  for (const entry of remote) {
    if (tree.hasId(entry.id)) {
      const mine = tree.getEntry(entry.id);
      if (mine && !sameContent(mine, entry)) conflicts.push(entry.id);
      continue;
    }
    tree.load(entry, {}, { keepLeaf: true });
    fresh.push(entry);
  }
  return { fresh, conflicts };
}

/** The fresh entries, then a leaf marker when the file would otherwise open elsewhere than `leaf`. */
function withLeaf(
  tree: SessionTree,
  fresh: SessionEntry[],
  before: string | null,
  leaf: string | null,
): SessionEntry[] {
  const opensAt = fresh.length > 0 ? (fresh[fresh.length - 1] as SessionEntry).id : before;
  if (leaf === null) tree.resetLeaf();
  else tree.branch(leaf);
  if (opensAt === leaf) return fresh;
  return [...fresh, tree.markLeaf()];
}

function countOnly(
  tree: SessionTree,
  remote: readonly SessionEntry[],
  remoteLeaf: string | null,
  mode: LeafMode,
): PullOutcome {
  const leafBefore = fileLeaf(tree);
  const fresh = remote.filter((entry) => !tree.hasId(entry.id));
  const conflicts = remote
    .filter((entry) => {
      const mine = tree.getEntry(entry.id);
      return mine !== undefined && !sameContent(mine, entry);
    })
    .map((entry) => entry.id);
  // Where the leaf would go needs the entries in the tree: a copy, so the file's tree stays as read.
  const copy = new SessionTree();
  for (const entry of tree.getStoredEntries()) copy.load(entry);
  for (const entry of fresh) copy.load(entry, {}, { keepLeaf: true });
  const leafAfter = localLeafAfterPull(mode, copy, leafBefore, remoteLeaf);
  return { written: fresh.length, conflicts, leafBefore, leafAfter };
}
