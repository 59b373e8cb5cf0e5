import type {
  AppendResult as StoreAppendResult,
  WriteResult as StoreWriteResult,
  WriteOutcome,
} from "../../store/store.js";
import { defineRoute, type Reply } from "../http/route.js";
import {
  AppendResult,
  BranchBody,
  LabelBody,
  LabelsResult,
  SessionParams,
  SetLeafBody,
  WriteResult,
} from "../schemas.js";
import type { ServerServices } from "../services.js";
import { labelsAnswer } from "../work/whole-reads.js";
import { appendDrafts } from "./append.js";
import { WHOLE_READ_ERRORS, WRITE_ERRORS } from "./common.js";
import { type WriteRecord, writeSession } from "./session-write.js";

const tag = "navigation";

const appendReply = ({ result }: WriteOutcome<StoreAppendResult>): Reply => ({
  body: result,
  revision: result.revision,
});

/** Moves the leaf to `leafId` (null: before the root) under the session's write rules. */
function moveLeaf(
  services: ServerServices,
  owner: string,
  sessionId: string,
  leafId: string | null,
  ifMatch: number | undefined,
  record: WriteRecord<StoreWriteResult>,
): Promise<Reply> {
  return writeSession(services, { owner, sessionId, ifMatch }, record, (write) =>
    services.store.setLeaf(owner, sessionId, leafId, write),
  );
}

export const setLeaf = defineRoute({
  method: "put",
  path: "/v1/sessions/:id/leaf",
  operationId: "setLeaf",
  summary: "Move the leaf (rewind or check out another branch; null: before the root). Nothing is deleted",
  tag,
  params: SessionParams,
  body: SetLeafBody,
  conditional: true,
  idempotent: true,
  responses: { 200: { description: "Moved", schema: WriteResult }, ...WRITE_ERRORS },
  handle({ params, body, principal, ifMatch, idempotency, services }) {
    return moveLeaf(services, principal.userId, params.id, body.leafId, ifMatch, {
      reply: ({ result }) => ({ body: result, revision: result.revision }),
      idempotency,
    });
  },
});

export const branchSession = defineRoute({
  method: "post",
  path: "/v1/sessions/:id/branches",
  operationId: "branchSession",
  summary: "Branch from an entry; with a summary, a branch_summary entry under it becomes the leaf",
  tag,
  params: SessionParams,
  body: BranchBody,
  conditional: true,
  idempotent: true,
  responses: { 200: { description: "Branched", schema: AppendResult }, ...WRITE_ERRORS },
  handle({ params, body, principal, ifMatch, idempotency, services }) {
    const owner = principal.userId;
    if (body.summary === undefined) {
      return moveLeaf(services, owner, params.id, body.fromId, ifMatch, {
        reply: ({ result }) => ({
          body: { ...result, appended: [], skipped: [] },
          revision: result.revision,
        }),
        idempotency,
      });
    }
    const draft = {
      type: "branch_summary",
      parentId: body.fromId,
      fromId: body.fromId ?? "root",
      summary: body.summary,
      ...(body.details === undefined ? {} : { details: body.details }),
    };
    // The draft names its parent, so only a client If-Match guards it: branching needs no leaf read.
    return appendDrafts(
      services,
      owner,
      params.id,
      [draft],
      { ifMatch },
      { reply: appendReply, idempotency },
    );
  },
});

export const getLabels = defineRoute({
  method: "get",
  path: "/v1/sessions/:id/labels",
  revisioned: true,
  operationId: "getLabels",
  summary: "Current labels by target entry id",
  tag,
  params: SessionParams,
  responses: { 200: { description: "Labels", schema: LabelsResult }, ...WHOLE_READ_ERRORS },
  handle({ params, principal, services }) {
    return labelsAnswer({ services, owner: principal.userId, sessionId: params.id });
  },
});

export const setLabel = defineRoute({
  method: "post",
  path: "/v1/sessions/:id/labels",
  operationId: "setLabel",
  summary: "Label an entry (an empty label clears it): appends a label entry, as pi does",
  tag,
  params: SessionParams,
  body: LabelBody,
  conditional: true,
  idempotent: true,
  responses: { 200: { description: "Labelled", schema: AppendResult }, ...WRITE_ERRORS },
  async handle({ params, body, principal, ifMatch, idempotency, services }) {
    const owner = principal.userId;
    // The target must exist: appendDrafts checks it for every label.
    const label = body.label?.trim() || undefined;
    const draft = { type: "label", targetId: body.targetId, label };
    return appendDrafts(
      services,
      owner,
      params.id,
      [draft],
      { ifMatch },
      { reply: appendReply, idempotency },
    );
  },
});

export const navigationRoutes = [setLeaf, branchSession, getLabels, setLabel];
