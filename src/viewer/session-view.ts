import type { SessionTree } from "../core/tree.js";
import type { MessagePage, SelectionAnswer } from "./context-at.js";
import type { SessionShape } from "./session-shape.js";
import type { ViewerSession } from "./source.js";

/**
 * What the viewer's routes ask of one read of a session (`LoadedSession` holds one): its shape as
 * JSON, row texts, an entry with a page of the context there. Two kinds answer the same: core's
 * tree over every entry (`TreeView` in loaded-session.ts), and a session file's sidecar index with
 * its lines read by offset as asked (indexed-session.ts, on the server only).
 */
export interface SessionView {
  readonly key: string;
  /** Nodes in the shape. */
  readonly size: number;
  /** The shape as an object; an indexed view makes it only when asked (stats, diff). */
  readonly shape: SessionShape;
  /** Core's index of every entry; an indexed view reads the whole file when first asked. */
  readonly tree: SessionTree;
  has(entryId: string): boolean;
  shapeJson(): string;
  /** The shape as `/api/shape` sends it (shape-wire.ts). */
  wireJson(): string;
  /** The node the page opens at: the leaf, else the last node; undefined for no node. */
  startId(): string | undefined;
  /** The node number of `startId()`, -1 for none. */
  startNode(): number;
  textsOf(from: number, to: number): { from: number; texts: string[] };
  select(entryId: string, page: MessagePage): SelectionAnswer;
}

/** Views a source made as it read a session, for `LoadedSession.of` to use instead of a tree. */
const views = new WeakMap<ViewerSession, SessionView>();

/** Hands over how a source serves a session it did not read whole. */
export function attachView(session: ViewerSession, view: SessionView): void {
  views.set(session, view);
}

export function attachedView(session: ViewerSession): SessionView | undefined {
  return views.get(session);
}
