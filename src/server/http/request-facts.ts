import { randomUUID } from "node:crypto";

/** What the access log and the metrics learn about a request while it is handled. */
export interface RequestFacts {
  requestId: string;
  /** The declared route's pattern (`/v1/sessions/:id`); unset for 404s and extension routes. */
  route?: string;
  /** The authenticated user, once known. */
  user?: string;
  /** What made a 5xx answer, logged on the request's line. */
  error?: unknown;
  /**
   * The response was built with X-Request-Id among its headers (a plain object, which
   * @hono/node-server writes straight out): the middleware need not add it through `headers`.
   */
  idInResponse?: boolean;
}

const facts = new WeakMap<Request, RequestFacts>();

/** A client's X-Request-Id is kept when it is a plain token; anything else gets a fresh id. */
const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function startRequest(request: Request): RequestFacts {
  const given = request.headers.get("x-request-id");
  const requestId = given !== null && CLIENT_REQUEST_ID.test(given) ? given : randomUUID();
  const started: RequestFacts = { requestId };
  facts.set(request, started);
  return started;
}

/** The facts of a request; undefined when none were started (an app built without the middleware). */
export function requestFacts(request: Request): RequestFacts | undefined {
  return facts.get(request);
}
