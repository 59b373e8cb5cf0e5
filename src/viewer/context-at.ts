import { type ProjectedContext, projectContext } from "../core/context.js";
import type { SessionEntry } from "../core/entry.js";
import { NotFoundError, ValidationError } from "../core/errors.js";
import { SessionTree } from "../core/tree.js";
import type { ViewerSession } from "./source.js";

/** What the context panel shows for one node: core's projection of the path root → node. */
export interface ContextAtNode extends ProjectedContext {
  entryId: string;
  /** Ids of the path root → node, so the page can check what it highlights. */
  pathLength: number;
}

/** Which of the context's messages to send: `tail` of them ending before message `before`. */
export interface MessagePage {
  tail?: number;
  before?: number;
}

/**
 * One page of the context at a node (`omitted` messages before it, `total` in all) and the node's
 * own entry: what a click on a node needs, in one answer. A path of 100,000 messages is sent a
 * page at a time.
 */
export interface SelectionAnswer extends ContextAtNode {
  omitted: number;
  total: number;
  entry: SessionEntry;
  /** The Claude Code subagent a sidechain entry belongs to (format/describe.ts). */
  subagent?: string;
}

/**
 * The context the model would see if the leaf were at `entryId`: the path from the root to it,
 * projected exactly as pi's `buildSessionContext` (core's `projectContext`). The server's routes
 * and the single-file export's page both run it. An id not in the session is
 * `NotFoundError("entry_not_found")`.
 */
export function contextInTree(tree: SessionTree, entryId: string): ContextAtNode {
  if (!tree.getEntry(entryId)) {
    throw new NotFoundError("entry_not_found", `Entry ${entryId} not found`, { details: { id: entryId } });
  }
  const path = tree.getBranchSlots(entryId);
  return { entryId, pathLength: path.slots.length, ...projectContext(path) };
}

/** The answer to a click on `entryId`: its entry and a page of the context there. */
export function selectionInTree(
  tree: SessionTree,
  entryId: string,
  page: MessagePage,
  subagent: (id: string) => string | undefined,
): SelectionAnswer {
  const context = contextInTree(tree, entryId);
  return pagedSelection(context, page, tree.getEntry(entryId) as SessionEntry, subagent(entryId));
}

/** A selection's answer: `entry` with the page of `context` the query asks for. */
export function pagedSelection(
  context: ContextAtNode,
  page: MessagePage,
  entry: SessionEntry,
  subagent: string | undefined,
): SelectionAnswer {
  const total = context.messages.length;
  const end = Math.min(total, page.before ?? total);
  const start = Math.max(0, end - (page.tail ?? total));
  return {
    ...context,
    messages: context.messages.slice(start, end),
    messageEntryIds: context.messageEntryIds.slice(start, end),
    omitted: start,
    total,
    entry,
    subagent,
  };
}

/** A page of messages as a query gives it (`tail=N&before=K`); bad numbers are `invalid_argument`. */
export function messagePage(tail: string | undefined, before: string | undefined): MessagePage {
  return { tail: count("tail", tail), before: count("before", before) };
}

/** A query parameter that must be a count (a non-negative integer); unset stays undefined. */
export function count(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || value.trim() === "")
    throw new ValidationError("invalid_argument", `${name} must be a count, got "${value}"`);
  return n;
}

/** Indexed once per loaded session: every click on a large session would otherwise pay O(n). */
const trees = new WeakMap<ViewerSession, SessionTree>();

/**
 * Hands over the tree a source already built while reading the session (its `getEntries()` are
 * the session's entries), so the session is not indexed a second time.
 */
export function rememberTree(session: ViewerSession, tree: SessionTree): void {
  trees.set(session, tree);
}

/** Core's index of a session: the one its source built while reading it, else made once. */
export function treeOf(session: ViewerSession): SessionTree {
  let tree = trees.get(session);
  if (!tree) {
    tree = new SessionTree();
    for (const entry of session.entries) tree.load(entry);
    trees.set(session, tree);
  }
  return tree;
}
