import { defineRoute } from "../http/route.js";
import { ContextResult, LeafQuery, SessionParams, TreeResult } from "../schemas.js";
import { contextAnswer, treeAnswer } from "../work/whole-reads.js";
import { WHOLE_READ_ERRORS } from "./common.js";

const tag = "views";

export const getContext = defineRoute({
  method: "get",
  path: "/v1/sessions/:id/context",
  revisioned: true,
  operationId: "getContext",
  summary: "What the model sees at leafId (default: the leaf): pi's buildSessionContext",
  tag,
  params: SessionParams,
  query: LeafQuery,
  responses: { 200: { description: "The projected context", schema: ContextResult }, ...WHOLE_READ_ERRORS },
  handle({ params, query, principal, services }) {
    return contextAnswer({ services, owner: principal.userId, sessionId: params.id }, query.leafId);
  },
});

export const getTree = defineRoute({
  method: "get",
  path: "/v1/sessions/:id/tree",
  revisioned: true,
  operationId: "getTree",
  summary: "The whole tree, flat: every node with its children's ids and its label",
  tag,
  params: SessionParams,
  responses: { 200: { description: "The tree", schema: TreeResult }, ...WHOLE_READ_ERRORS },
  handle({ params, principal, services }) {
    return treeAnswer({ services, owner: principal.userId, sessionId: params.id });
  },
});

export const viewRoutes = [getContext, getTree];
