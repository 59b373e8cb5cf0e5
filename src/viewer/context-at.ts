import { type ProjectedContext, projectContext } from "../core/context.js";
import { NotFoundError } from "../core/errors.js";
import { SessionTree } from "../core/tree.js";
import type { ViewerSession } from "./source.js";

/** What the context panel shows for one node: core's projection of the path root → node. */
export interface ContextAtNode extends ProjectedContext {
  entryId: string;
  /** Ids of the path root → node, so the page can check what it highlights. */
  pathLength: number;
}

/**
 * The context the model would see if the leaf were at `entryId`: the path from the root to it,
 * projected exactly as pi's `buildSessionContext` (core's `projectContext`). An id not in the
 * session is `NotFoundError("entry_not_found")`.
 */
export function contextAt(session: ViewerSession, entryId: string): ContextAtNode {
  return contextInTree(treeOf(session), entryId);
}

/**
 * `contextAt` over a session already indexed: what the single-file export's page runs (it holds the
 * tree it draws), so the page and the server answer with the same function.
 */
export function contextInTree(tree: SessionTree, entryId: string): ContextAtNode {
  if (!tree.getEntry(entryId)) {
    throw new NotFoundError("entry_not_found", `Entry ${entryId} not found`, { details: { id: entryId } });
  }
  const path = tree.getBranch(entryId);
  return { entryId, pathLength: path.length, ...projectContext(path) };
}

/** Indexed once per loaded session: every click on a large session would otherwise pay O(n). */
const trees = new WeakMap<ViewerSession, SessionTree>();

/** Whether the session holds this entry (O(1) once indexed). */
export function hasEntry(session: ViewerSession, entryId: string): boolean {
  return treeOf(session).getEntry(entryId) !== undefined;
}

function treeOf(session: ViewerSession): SessionTree {
  let tree = trees.get(session);
  if (!tree) {
    tree = new SessionTree();
    for (const entry of session.entries) tree.load(entry);
    trees.set(session, tree);
  }
  return tree;
}
