import type { ServerServices } from "../services.js";
import { HttpError } from "./http-error.js";
import { replyResponse, sessionLocation, toHttpResponse } from "./reply.js";
import type { AnyRoute, IdempotencyScope, Reply } from "./route.js";

/**
 * Thrown inside a write when its Idempotency-Key was taken by another request that committed
 * first: the write is undone, and the request answers what the other one stored.
 */
export class IdempotencyKeyTaken extends Error {
  constructor() {
    super("The Idempotency-Key was used by a request that committed first");
    this.name = "IdempotencyKeyTaken";
  }
}

/** Another request's commit can take a key between our look-up and our write: then look again. */
const ATTEMPTS = 3;

/**
 * Runs a keyed write exactly once per (user, key). There is no claim before the write: the
 * response is stored in the write's own transaction (routes/session-write.ts), so a crash leaves
 * either both or neither, and a retry after it either replays the response or runs the write anew.
 * A retry with a different request is refused (422); failures are not remembered.
 */
export async function runKeyed(
  services: ServerServices,
  route: AnyRoute,
  scope: IdempotencyScope,
  run: () => Promise<Reply>,
): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    const stored = await storedAnswer(services, route, scope);
    if (stored === "another request") {
      throw new HttpError(
        422,
        "idempotency_key_reused",
        "This Idempotency-Key was used for a different request",
      );
    }
    if (stored) return stored;
    try {
      return replyResponse(await run());
    } catch (error) {
      if (!(error instanceof IdempotencyKeyTaken)) {
        // The same request, racing ours with the key, may have committed first and made ours fail
        // (an If-Match it made stale, a session it moved to the trash): answer what it stored.
        const winner = await storedAnswer(services, route, scope);
        if (winner instanceof Response) return winner;
        throw error;
      }
      if (attempt >= ATTEMPTS) {
        throw new HttpError(409, "idempotency_in_progress", "Requests with this Idempotency-Key keep racing");
      }
    }
  }
}

/** The answer stored under the key for this request; "another request" when the key holds another's. */
async function storedAnswer(
  services: ServerServices,
  route: AnyRoute,
  scope: IdempotencyScope,
): Promise<Response | "another request" | null> {
  const stored = await services.db.findIdempotent(scope.owner, scope.key);
  if (!stored) return null;
  if (stored.requestHash !== scope.requestHash) return "another request";
  // A response about a session that is gone (purged, or in the trash for routes that do not
  // reach the trash) is not replayed: the request answers as the API now does, session_not_found.
  if (stored.sessionId !== null) {
    const options = { includeDeleted: route.findsDeleted === true };
    await services.store.getSummary(scope.owner, stored.sessionId, options);
  }
  // Headers are not stored; a session a 201 made is where its first answer said it was.
  const created = stored.response.status === 201 && stored.sessionId !== null;
  return toHttpResponse(
    stored.response,
    created ? { location: sessionLocation(stored.sessionId as string) } : {},
  );
}
