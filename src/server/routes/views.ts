import { projectContext } from "../../core/context.js";
import type { SessionEntry } from "../../core/entry.js";
import { defineRoute } from "../http/route.js";
import { ContextResult, LeafQuery, SessionParams, TreeResult } from "../schemas.js";
import { SESSION_ERRORS } from "./common.js";

const tag = "views";

export const getContext = defineRoute({
  method: "get",
  path: "/v1/sessions/:id/context",
  operationId: "getContext",
  summary: "What the model sees at leafId (default: the leaf): pi's buildSessionContext",
  tag,
  params: SessionParams,
  query: LeafQuery,
  responses: { 200: { description: "The projected context", schema: ContextResult }, ...SESSION_ERRORS },
  async handle({ params, query, principal, services }) {
    const summary = await services.store.getSummary(principal.userId, params.id);
    const leafId = query.leafId ?? summary.leafId;
    const path = leafId === null ? [] : await services.store.readBranch(principal.userId, params.id, leafId);
    const { messages, thinkingLevel, model, extensionState, messageEntryIds, warnings } =
      projectContext(path);
    const body = { leafId, messages, thinkingLevel, model, extensionState, messageEntryIds, warnings };
    return { body, revision: summary.revision };
  },
});

interface FlatNode {
  id: string;
  parentId: string | null;
  type: string;
  timestamp: string;
  label?: string;
  children: string[];
}

/**
 * The tree as a flat list of nodes with child ids: a nested structure as deep as a long session
 * would overflow JSON.stringify. Entries whose parent is missing are listed as roots.
 */
function flattenTree(entries: readonly SessionEntry[]): { roots: string[]; nodes: FlatNode[] } {
  const nodes = new Map<string, FlatNode>();
  const labels = new Map<string, string>();
  for (const e of entries) {
    if (!nodes.has(e.id))
      nodes.set(e.id, { id: e.id, parentId: e.parentId, type: e.type, timestamp: e.timestamp, children: [] });
    if (e.type === "label") {
      if (e.label) labels.set(e.targetId, e.label);
      else labels.delete(e.targetId);
    }
  }
  const roots: string[] = [];
  for (const node of nodes.values()) {
    const parent = node.parentId === null ? undefined : nodes.get(node.parentId);
    if (parent) parent.children.push(node.id);
    else roots.push(node.id);
    const label = labels.get(node.id);
    if (label !== undefined) node.label = label;
  }
  return { roots, nodes: [...nodes.values()] };
}

export const getTree = defineRoute({
  method: "get",
  path: "/v1/sessions/:id/tree",
  operationId: "getTree",
  summary: "The whole tree, flat: every node with its children's ids and its label",
  tag,
  params: SessionParams,
  responses: { 200: { description: "The tree", schema: TreeResult }, ...SESSION_ERRORS },
  async handle({ params, principal, services }) {
    const session = await services.store.loadSession(principal.userId, params.id);
    const body = { leafId: session.summary.leafId, ...flattenTree(session.entries) };
    return { body, revision: session.summary.revision };
  },
});

export const viewRoutes = [getContext, getTree];
