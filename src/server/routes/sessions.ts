import { Type } from "@sinclair/typebox";
import type { Principal } from "../auth/principal.js";
import { defineRoute, type Reply } from "../http/route.js";
import {
  CreateSessionBody,
  ListQuery,
  RenameBody,
  SessionPage,
  SessionParams,
  SessionSummary,
  WriteResult,
} from "../schemas.js";
import type { ServerServices } from "../services.js";
import { appendDrafts } from "./append.js";
import { AUTH_ERRORS, publicSummary, SESSION_ERRORS, summaryReply, WRITE_ERRORS } from "./common.js";
import { auditDeletion } from "./deletions.js";
import { writeSession } from "./session-write.js";

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
  async handle({ body, principal, services }) {
    const summary = await services.store.createSession(principal.userId, {
      cwd: body.cwd,
      name: body.name,
      parentSession: body.parentSession,
    });
    return summaryReply(summary, 201);
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
  async handle({ params, body, principal, ifMatch, services }) {
    const draft = { type: "session_info", name: body.name.trim() };
    await appendDrafts(services, principal.userId, params.id, [draft], { ifMatch });
    return summaryReply(await services.store.getSummary(principal.userId, params.id));
  },
});

/** Soft delete or restore: a conditional write (a restore finds its session in the trash), audited. */
async function moveToOrFromTrash(
  services: ServerServices,
  principal: Principal,
  sessionId: string,
  ifMatch: number | undefined,
  action: "delete" | "restore",
): Promise<Reply> {
  const owner = principal.userId;
  const target = { owner, sessionId, ifMatch, includeDeleted: action === "restore" };
  const result = await writeSession(services, target, (write) =>
    action === "restore"
      ? services.store.restoreSession(owner, sessionId, write)
      : services.store.deleteSession(owner, sessionId, write),
  );
  await auditDeletion(services, principal, sessionId, action);
  return { body: result, revision: result.revision };
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
  responses: { 200: { description: "Deleted", schema: WriteResult }, ...WRITE_ERRORS },
  handle: ({ params, principal, ifMatch, services }) =>
    moveToOrFromTrash(services, principal, params.id, ifMatch, "delete"),
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
  responses: { 200: { description: "Restored", schema: WriteResult }, ...WRITE_ERRORS },
  handle: ({ params, principal, ifMatch, services }) =>
    moveToOrFromTrash(services, principal, params.id, ifMatch, "restore"),
});

export const purgeSession = defineRoute({
  method: "post",
  path: "/v1/sessions/:id/purge",
  operationId: "purgeSession",
  summary: "Hard delete, deleted or not: gone for good",
  tag,
  params: SessionParams,
  responses: { 204: { description: "Purged" }, ...SESSION_ERRORS },
  async handle({ params, principal, services }) {
    const owner = principal.userId;
    const target = { owner, sessionId: params.id, ifMatch: undefined };
    await writeSession(services, target, () => services.store.purgeSession(owner, params.id));
    await auditDeletion(services, principal, params.id, "purge");
    return { status: 204, body: null };
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
