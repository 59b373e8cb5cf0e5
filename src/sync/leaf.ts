export { fileLeaf, isHiddenMarker } from "../core/file-leaf.js";

import type { SessionTree } from "../core/tree.js";

/**
 * Whose leaf wins. Each copy keeps its own leaf (the service keeps its own too):
 * - `"auto"` (default): a leaf moves only forward along its own path, when the other copy's leaf
 *   continues the same conversation (a fast-forward); a rewind, a fork or another branch stays
 *   where it is made;
 * - `"local"`: the service's leaf is set to this copy's;
 * - `"remote"`: this copy's leaf is set to the service's.
 */
export type LeafMode = "auto" | "local" | "remote";

export const LEAF_MODES: readonly LeafMode[] = ["auto", "local", "remote"];

/** Whether `ancestor` is on the path root → `of` (null, before the root, is on every path). */
export function isOnPath(tree: SessionTree, ancestor: string | null, of: string | null): boolean {
  if (ancestor === null) return true;
  const seen = new Set<string>();
  for (let id = of; id !== null && !seen.has(id); ) {
    if (id === ancestor) return true;
    seen.add(id);
    id = tree.getEntry(id)?.parentId ?? null;
  }
  return false;
}

/** Where the local copy's leaf goes once the service's entries are in its tree. */
export function localLeafAfterPull(
  mode: LeafMode,
  tree: SessionTree,
  local: string | null,
  remote: string | null,
): string | null {
  const known = remote === null || tree.getEntry(remote) !== undefined;
  if (!known || local === remote || mode === "local") return local;
  if (mode === "remote") return remote;
  return isOnPath(tree, local, remote) ? remote : local;
}

/**
 * Where the service's leaf goes once it has this copy's entries (all of them: the file's leaf is
 * never a marker nobody built on): `undefined` leaves it alone.
 */
export function remoteLeafAfterPush(
  mode: LeafMode,
  tree: SessionTree,
  local: string | null,
  remote: string | null,
): string | null | undefined {
  if (local === remote || mode === "remote") return undefined;
  if (mode === "local") return local;
  return isOnPath(tree, remote, local) ? local : undefined;
}
