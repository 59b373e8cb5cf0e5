import { defineRoute } from "../http/route.js";
import {
  AppendBody,
  AppendResult,
  BranchResult,
  EntriesQuery,
  EntryPage,
  LeafQuery,
  SessionParams,
} from "../schemas.js";
import { entryPageAnswer } from "../work/entry-pages.js";
import { branchAnswer } from "../work/whole-reads.js";
import { appendDrafts } from "./append.js";
import { SESSION_ERRORS, WHOLE_READ_ERRORS, WRITE_ERRORS } from "./common.js";

const tag = "entries";

export const appendEntries = defineRoute({
  method: "post",
  path: "/v1/sessions/:id/entries",
  operationId: "appendEntries",
  summary: "Append a batch atomically; entries with known ids are skipped (idempotent retry)",
  tag,
  params: SessionParams,
  body: AppendBody,
  conditional: true,
  idempotent: true,
  responses: { 200: { description: "Appended", schema: AppendResult }, ...WRITE_ERRORS },
  handle({ params, body, principal, ifMatch, idempotency, services }) {
    const options = { ifMatch, moveLeaf: body.moveLeaf };
    return appendDrafts(services, principal.userId, params.id, body.entries, options, {
      reply: ({ result }) => ({ body: result, revision: result.revision }),
      idempotency,
    });
  },
});

export const readEntries = defineRoute({
  method: "get",
  path: "/v1/sessions/:id/entries",
  operationId: "readEntries",
  summary: "Entries in storage order, paged: pass nextAfter as after",
  tag,
  params: SessionParams,
  query: EntriesQuery,
  responses: { 200: { description: "A page of entries", schema: EntryPage }, ...SESSION_ERRORS },
  handle({ params, query, principal, services }) {
    return entryPageAnswer(services, principal.userId, params.id, query);
  },
});

export const readBranch = defineRoute({
  method: "get",
  path: "/v1/sessions/:id/branch",
  revisioned: true,
  operationId: "readBranch",
  summary: "One branch: the path root → leafId (default: the session's leaf)",
  tag,
  params: SessionParams,
  query: LeafQuery,
  responses: { 200: { description: "The path", schema: BranchResult }, ...WHOLE_READ_ERRORS },
  handle({ params, query, principal, services }) {
    return branchAnswer({ services, owner: principal.userId, sessionId: params.id }, query.leafId);
  },
});

export const entryRoutes = [appendEntries, readEntries, readBranch];
