import { ConflictError } from "../../core/errors.js";
import type { WriteOptions } from "../../store/store.js";
import type { ServerServices } from "../services.js";

/** Which session a write is for, and the precondition its request named. */
export interface SessionWriteTarget {
  owner: string;
  sessionId: string;
  /** The revision named by `If-Match`; undefined: any. */
  ifMatch: number | undefined;
  /** Check `If-Match` against a soft-deleted session too (a restore's target is in the trash). */
  includeDeleted?: boolean;
}

/**
 * The one way a route writes to a session: behind this instance's other writes to it (the
 * session queue), after the `If-Match` precondition, with the named revision handed to the store
 * so another instance's write in between still fails the write.
 */
export function writeSession<T>(
  services: ServerServices,
  target: SessionWriteTarget,
  write: (options: WriteOptions) => Promise<T>,
): Promise<T> {
  const { owner, sessionId, ifMatch } = target;
  return services.queue.run(owner, sessionId, async () => {
    if (ifMatch !== undefined) await checkIfMatch(services, target, ifMatch);
    return write({ expectedRevision: ifMatch });
  });
}

/**
 * The store checks the revision only for writes that change something; HTTP promises a 412 for
 * any stale precondition, no-op or not, so it is read and compared first.
 */
async function checkIfMatch(services: ServerServices, target: SessionWriteTarget, ifMatch: number) {
  const options = { includeDeleted: target.includeDeleted === true };
  const { revision } = await services.store.getSummary(target.owner, target.sessionId, options);
  if (revision !== ifMatch) throw new ConflictError("The session changed since the revision named", revision);
}
