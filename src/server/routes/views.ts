import { projectContext } from "../../core/context.js";
import { defineRoute } from "../http/route.js";
import { ContextResult, LeafQuery, SessionParams, TreeResult } from "../schemas.js";
import { readPathAt, SESSION_ERRORS } from "./common.js";
import { flattenTree, treeOf } from "./tree-view.js";

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
    const { leafId, path, revision } = await readPathAt(services, principal.userId, params.id, query.leafId);
    const { messages, thinkingLevel, model, extensionState, messageEntryIds, warnings } =
      projectContext(path);
    const body = { leafId, messages, thinkingLevel, model, extensionState, messageEntryIds, warnings };
    return { body, revision };
  },
});

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
    const body = { leafId: session.summary.leafId, ...flattenTree(treeOf(session.entries)) };
    return { body, revision: session.summary.revision };
  },
});

export const viewRoutes = [getContext, getTree];
