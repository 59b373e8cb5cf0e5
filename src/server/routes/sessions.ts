import { Type } from "@sinclair/typebox";
import type { SessionSummary as StoreSummary, WriteResult as WriteResultOf } from "../../store/store.js";
import { defineRoute, type Reply, type RouteRequest } from "../http/route.js";
import {
  CreateSessionBody,
  ListQuery,
  RenameBody,
  SessionPage,
  SessionParams,
  SessionSummary,
  WriteResult,
} from "../schemas.js";
import { appendDrafts } from "./append.js";
import {
  AUTH_ERRORS,
  createdReply,
  PRECONDITION_ERRORS,
  publicSummary,
  SESSION_ERRORS,
  summaryReply,
  WRITE_ERRORS,
} from "./common.js";
import { recordedWrite, type WriteRecord, writeSession } from "./session-write.js";

const tag = "sessions";

export const createSession = defineRoute({
  method: "post",
  path: "/v1/sessions",
  operationId: "createSession",
  summary: "Create a session (the server picks an unguessable UUID v7 id)",
  tag,
  body: CreateSessionBody,
  idempotent: true,
  responses: { 201: { description: "Created", schema: SessionSummary }, ...WRITE_ERRORS },
  handle({ body, principal, idempotency, services }) {
    const owner = principal.userId;
    const init = { cwd: body.cwd, name: body.name, parentSession: body.parentSession };
    const record = { owner, idempotency, reply: createdReply };
    return recordedWrite(services, record, (within) => services.store.createSession(owner, init, { within }));
  },
});

export const listSessions = defineRoute({
  method: "get",
  path: "/v1/sessions",
  operationId: "listSessions",
  summary: "List sessions, newest first, paged by cursor; search by name or first message",
  tag,
  query: ListQuery,
  responses: { 200: { description: "A page of sessions", schema: SessionPage }, ...AUTH_ERRORS },
  async handle({ query, principal, services }) {
    const page = await services.store.listSessions(principal.userId, query);
    return { body: { items: page.items.map(publicSummary), nextCursor: page.nextCursor } };
  },
});

export const getSession = defineRoute({
  method: "get",
  path: "/v1/sessions/:id",
  revisioned: true,
  operationId: "getSession",
  summary: "A session's summary; ETag is its revision",
  tag,
  params: SessionParams,
  query: Type.Object({ includeDeleted: Type.Optional(Type.Boolean()) }),
  responses: { 200: { description: "The session", schema: SessionSummary }, ...SESSION_ERRORS },
  async handle({ params, query, principal, services }) {
    const options = { includeDeleted: query.includeDeleted === true };
    return summaryReply(await services.store.getSummary(principal.userId, params.id, options));
  },
});

export const renameSession = defineRoute({
  method: "patch",
  path: "/v1/sessions/:id",
  operationId: "renameSession",
  summary: "Rename: appends a session_info entry (an empty name clears it)",
  tag,
  params: SessionParams,
  body: RenameBody,
  conditional: true,
  idempotent: true,
  responses: { 200: { description: "Renamed", schema: SessionSummary }, ...WRITE_ERRORS },
  handle({ params, body, principal, ifMatch, idempotency, services }) {
    const draft = { type: "session_info", name: body.name.trim() };
    // The summary this append produced, from inside its transaction: under concurrent writers a
    // summary read afterwards could carry another write's revision and name.
    return appendDrafts(
      services,
      principal.userId,
      params.id,
      [draft],
      { ifMatch },
      {
        reply: ({ summary }) => summaryReply(summary as StoreSummary),
        idempotency,
      },
    );
  },
});

/**
 * Soft delete or restore: a conditional write (a restore finds its session in the trash), audited
 * in its transaction when it changed something.
 */
function moveToOrFromTrash(
  request: RouteRequest<{ id: string }, unknown, unknown>,
  action: "delete" | "restore",
): Promise<Reply> {
  const { params, principal, ifMatch, idempotency, services } = request;
  const owner = principal.userId;
  const sessionId = params.id;
  // Both reach the trash: a delete repeated with its If-Match answers as any repeated write does.
  const target = { owner, sessionId, ifMatch, includeDeleted: true };
  const record: WriteRecord<WriteResultOf> = {
    reply: ({ result }) => ({ body: result, revision: result.revision }),
    idempotency,
    audit: { principal, action },
  };
  return writeSession(services, target, record, (write) =>
    action === "restore"
      ? services.store.restoreSession(owner, sessionId, write)
      : services.store.deleteSession(owner, sessionId, write),
  );
}

export const deleteSession = defineRoute({
  method: "delete",
  path: "/v1/sessions/:id",
  operationId: "deleteSession",
  summary: "Soft delete: hidden from lists and reads, restorable until purged",
  tag,
  params: SessionParams,
  conditional: true,
  idempotent: true,
  findsDeleted: true,
  responses: { 200: { description: "Deleted", schema: WriteResult }, ...WRITE_ERRORS },
  handle: (request) => moveToOrFromTrash(request, "delete"),
});

export const restoreSession = defineRoute({
  method: "post",
  path: "/v1/sessions/:id/restore",
  operationId: "restoreSession",
  summary: "Restore a soft-deleted session",
  tag,
  params: SessionParams,
  conditional: true,
  idempotent: true,
  findsDeleted: true,
  responses: { 200: { description: "Restored", schema: WriteResult }, ...WRITE_ERRORS },
  handle: (request) => moveToOrFromTrash(request, "restore"),
});

export const purgeSession = defineRoute({
  method: "post",
  path: "/v1/sessions/:id/purge",
  operationId: "purgeSession",
  summary: "Hard delete, deleted or not: gone for good",
  tag,
  params: SessionParams,
  // The one write that destroys: an If-Match naming a stale revision must stop it (RFC 9110 §13.1.1).
  conditional: true,
  responses: { 204: { description: "Purged" }, ...SESSION_ERRORS, ...PRECONDITION_ERRORS },
  handle({ params, principal, ifMatch, services }) {
    const owner = principal.userId;
    const target = { owner, sessionId: params.id, ifMatch, includeDeleted: true };
    // In the purge's transaction: its audit row, and the forgetting of every remembered response
    // about the session (they hold its name, cwd and first message).
    const record: WriteRecord<null> = {
      reply: () => ({ status: 204, body: null }),
      idempotency: undefined,
      audit: { principal, action: "purge" },
      forget: true,
    };
    return writeSession(services, target, record, ({ within }) =>
      services.store.purgeSession(owner, params.id, { within }),
    );
  },
});

export const sessionRoutes = [
  createSession,
  listSessions,
  getSession,
  renameSession,
  deleteSession,
  restoreSession,
  purgeSession,
];
