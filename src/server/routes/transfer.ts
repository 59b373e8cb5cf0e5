import { Type } from "@sinclair/typebox";
import { defineRoute } from "../http/route.js";
import { SessionParams, SessionSummary } from "../schemas.js";
import { exportAnswer, JSONL } from "../work/whole-reads.js";
import { createdReply, WHOLE_READ_ERRORS, WRITE_ERRORS } from "./common.js";
import { recordedWrite } from "./session-write.js";

const tag = "transfer";

// A streamed export assembles nothing: the response size bound does not apply to it.
const { 413: _tooLarge, ...EXPORT_ERRORS } = WHOLE_READ_ERRORS;

export const exportSession = defineRoute({
  method: "get",
  path: "/v1/sessions/:id/export",
  revisioned: true,
  operationId: "exportSession",
  summary: "The session as a pi v3 JSONL file (its revision as ETag)",
  tag,
  params: SessionParams,
  responses: {
    200: {
      description: "pi JSONL, streamed (chunked) a page of entries at a time",
      schema: Type.String(),
      contentType: JSONL,
    },
    ...EXPORT_ERRORS,
  },
  handle({ params, principal, services }) {
    return exportAnswer({ services, owner: principal.userId, sessionId: params.id });
  },
});

export const importSession = defineRoute({
  method: "post",
  path: "/v1/sessions/import",
  operationId: "importSession",
  summary: "Import a pi JSONL file (v1-v3) as a new session; the server gives it a new id",
  tag,
  body: Type.String({ description: "The JSONL file, as is" }),
  bodyFormat: "jsonl",
  idempotent: true,
  responses: { 201: { description: "Imported", schema: SessionSummary }, ...WRITE_ERRORS },
  handle({ body, principal, idempotency, services }) {
    const owner = principal.userId;
    const record = { owner, idempotency, reply: createdReply };
    // Always a new id: a file's id may be guessable, or someone else's.
    return recordedWrite(services, record, (within) =>
      services.store.importJsonl(owner, body, { newId: true, within }),
    );
  },
});

export const transferRoutes = [exportSession, importSession];
