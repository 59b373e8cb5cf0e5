import { isLeafMarker, type SessionEntry } from "../../core/entry.js";
import { ConflictError, ValidationError } from "../../core/errors.js";
import { type SyncMark, syncDigest } from "../../format/sync-digest.js";
import type { SessionSummary, AppendResult as StoreAppendResult } from "../../store/store.js";
import { HttpError } from "../http/http-error.js";
import { sessionLocation } from "../http/reply.js";
import { defineRoute, type Reply } from "../http/route.js";
import {
  AppendResult,
  SessionParams,
  SyncAppendBody,
  SyncSessionBody,
  SyncSessionResult,
  SyncStateBody,
  SyncStateResult,
} from "../schemas.js";
import type { ServerServices } from "../services.js";
import { AUTH_ERRORS, BODY_ERRORS, WRITE_ERRORS } from "./common.js";
import { recordedWrite, type WriteRecord, writeSession } from "./session-write.js";

const tag = "sync";
const PAGE = 1000;

/**
 * The cheap comparison of `sessiontree sync`: the copy sends the digest of the (id, revision,
 * entry count) marks it last saw; an equal digest is the whole answer (a few dozen bytes whatever
 * the number of sessions), otherwise every active session's mark comes back and the copy works out
 * which ones moved. The marks are read page by page: a session written meanwhile may be missed or
 * seen at a newer revision, which only makes the next comparison differ again.
 */
export const syncState = defineRoute({
  method: "post",
  path: "/v1/sync/state",
  operationId: "syncState",
  summary:
    "Compare a copy's digest of (id, revision, entry count) with the service's; marks only when they differ",
  tag,
  body: SyncStateBody,
  responses: {
    200: { description: "The service's digest", schema: SyncStateResult },
    ...AUTH_ERRORS,
    ...BODY_ERRORS,
  },
  async handle({ body, principal, services }) {
    const marks = await allMarks(services, principal.userId);
    const digest = syncDigest(marks);
    return { body: digest === body.digest ? { digest } : { digest, sessions: marks } };
  },
});

async function allMarks(services: ServerServices, owner: string): Promise<SyncMark[]> {
  const byId = new Map<string, SyncMark>();
  let cursor: string | null = null;
  do {
    const page = await services.store.listSessions(owner, { limit: PAGE, cursor, state: "active" });
    for (const { id, revision, entryCount } of page.items) byId.set(id, { id, revision, entryCount });
    cursor = page.nextCursor;
  } while (cursor !== null);
  return [...byId.values()];
}

/**
 * A session under the id and header a local copy has (the service keeps sessions per user by id,
 * so the same session on two machines is one session here). Creates it when the user has none of
 * that id; otherwise answers the one there, header included, in the trash too (`deletedAt`), and
 * the copy decides: a different header is another session, a deleted one is not pushed back.
 * Safe to repeat: a retry after a lost answer finds the session the first call made.
 */
export const putSyncSession = defineRoute({
  method: "put",
  path: "/v1/sync/sessions/:id",
  operationId: "putSyncSession",
  summary: "Create a session with the id and header a local copy has, or describe the one there",
  tag,
  params: SessionParams,
  body: SyncSessionBody,
  responses: {
    200: { description: "The session was there", schema: SyncSessionResult },
    201: { description: "Created", schema: SyncSessionResult },
    ...WRITE_ERRORS,
  },
  async handle({ params, body, principal, services }) {
    const owner = principal.userId;
    const init = {
      id: params.id,
      cwd: body.cwd,
      timestamp: body.timestamp,
      parentSession: body.parentSession,
    };
    const record: WriteRecord<SessionSummary> & { owner: string } = {
      owner,
      idempotency: undefined,
      reply: ({ result }) => describe(result, true),
    };
    try {
      return await recordedWrite(services, record, (within) =>
        services.store.createSession(owner, init, { within }),
      );
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
    }
    return describe(await services.store.getSummary(owner, params.id, { includeDeleted: true }), false);
  },
});

function describe(summary: SessionSummary, created: boolean): Reply {
  const header: { id: string; timestamp: string; cwd: string; parentSession?: string } = {
    id: summary.id,
    timestamp: summary.createdAt,
    cwd: summary.cwd,
  };
  if (summary.parentSession !== undefined) header.parentSession = summary.parentSession;
  const { revision, leafId, entryCount, deletedAt } = summary;
  const body = { created, header, revision, leafId, entryCount, deletedAt };
  if (!created) return { status: 200, body, revision };
  return { status: 201, body, revision, headers: { location: sessionLocation(summary.id) } };
}

/**
 * The entries a local copy has and the service lacks, as they are in the copy (nothing filled in),
 * idempotent by id, the leaf left where it is (each copy keeps its own). Unlike the public append,
 * a leaf marker is accepted when an entry of the same batch hangs under it: pi appended under our
 * marker (its leaf), which made the marker an ordinary entry of that copy's history. A marker
 * nobody built on is the copy's bookkeeping and is refused, as everywhere.
 */
export const syncAppendEntries = defineRoute({
  method: "post",
  path: "/v1/sync/sessions/:id/entries",
  operationId: "syncAppendEntries",
  summary:
    "Append a copy's entries as they are, idempotent by id, without moving the leaf; leaf markers with an entry under them are kept",
  tag,
  params: SessionParams,
  body: SyncAppendBody,
  responses: { 200: { description: "Appended", schema: AppendResult }, ...WRITE_ERRORS },
  handle({ params, body, principal, services }) {
    const entries = body.entries as SessionEntry[];
    checkSyncBatch(services.limits, entries);
    const owner = principal.userId;
    const record: WriteRecord<StoreAppendResult> = {
      idempotency: undefined,
      reply: ({ result }) => ({ body: result, revision: result.revision }),
    };
    const target = { owner, sessionId: params.id, ifMatch: undefined };
    return writeSession(services, target, record, (write) =>
      services.store.appendEntries(owner, params.id, entries, {
        ...write,
        moveLeaf: false,
        history: true,
      }),
    );
  },
});

/** The public append's limits, and: every leaf marker of the batch has an entry of it under it. */
function checkSyncBatch(
  limits: { maxEntriesPerRequest: number; maxEntryBytes: number },
  entries: readonly SessionEntry[],
): void {
  if (entries.length > limits.maxEntriesPerRequest) {
    throw new HttpError(
      413,
      "payload_too_large",
      `At most ${limits.maxEntriesPerRequest} entries per request`,
    );
  }
  const parents = new Set<string>();
  for (const entry of entries) {
    if (Buffer.byteLength(JSON.stringify(entry)) > limits.maxEntryBytes)
      throw new HttpError(413, "payload_too_large", `An entry is larger than ${limits.maxEntryBytes} bytes`);
    if (entry.parentId !== null) parents.add(entry.parentId);
  }
  entries.forEach((entry, index) => {
    if (isLeafMarker(entry) && !parents.has(entry.id)) {
      const why = "a leaf marker is sent only with an entry under it (else it is a copy's leaf, not history)";
      throw new ValidationError("invalid_entry", `Entry ${index}: ${why}`, {
        details: { index, id: entry.id },
      });
    }
  });
}

export const syncRoutes = [syncState, putSyncSession, syncAppendEntries];
