import { Type } from "@sinclair/typebox";
import { defineRoute } from "../http/route.js";
import { DeletionList } from "../schemas.js";
import { AUTH_ERRORS } from "./common.js";

export const listDeletions = defineRoute({
  method: "get",
  path: "/v1/deletions",
  operationId: "listDeletions",
  summary: "The audit log of this user's deletions, restores and purges, newest first",
  tag: "account",
  query: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })) }),
  responses: { 200: { description: "Audit records", schema: DeletionList }, ...AUTH_ERRORS },
  async handle({ query, principal, services }) {
    const rows = await services.db.listDeletions(principal.userId, query.limit ?? 100);
    return { body: { items: rows.map(({ owner: _owner, ...row }) => row) } };
  },
});
export const deletionRoutes = [listDeletions];
