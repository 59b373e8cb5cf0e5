import { createHash } from "node:crypto";
import type { Context, Hono } from "hono";
import type { Principal } from "../auth/principal.js";
import { accessLine, stderrSink } from "../ops/access-log.js";
import { checkQuotas, requestGrowth } from "../ops/quotas.js";
import { cutOffOnFailure } from "../ops/stream-failure.js";
import type { ServerServices } from "../services.js";
import { parseJson, readBodyText, requireJsonContentType } from "./body.js";
import { toErrorReply } from "./errors.js";
import { formatEtag, noneMatchHolds, parseIfMatch } from "./etag.js";
import { HttpError } from "./http-error.js";
import { runKeyed } from "./idempotency.js";
import { replyResponse } from "./reply.js";
import { requestFacts } from "./request-facts.js";
import type { AnyRoute, IdempotencyScope, Reply } from "./route.js";
import { validate, validateQuery } from "./validate.js";

const NO_PRINCIPAL: Principal = Object.freeze({ userId: "", credentialId: "", kind: "api_key" as const });
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** Registers one declared route on the app: auth → rate limit → parse → validate → handle. */
export function registerRoute(app: Hono, route: AnyRoute, services: ServerServices): void {
  app.on(route.method.toUpperCase(), route.path, async (c) => {
    try {
      return await handleRequest(c, route, services);
    } catch (error) {
      return sendError(c, error);
    }
  });
}

async function handleRequest(c: Context, route: AnyRoute, services: ServerServices): Promise<Response> {
  const facts = requestFacts(c.req.raw);
  if (facts) facts.route = route.path;
  const principal = route.public
    ? NO_PRINCIPAL
    : await services.auth.authenticate(c.req.header("authorization"));
  if (facts && !route.public) facts.user = principal.userId;
  type Fields = Record<string, unknown>;
  const params: Fields = route.params ? validate<Fields>(route.params, c.req.param(), "params") : {};
  const query: Fields = route.query ? validateQuery<Fields>(route.query, c.req.query()) : {};
  const ifMatch = route.conditional ? parseIfMatch(c.req.header("if-match")) : undefined;
  const rawBody = route.body ? await readRouteBody(c.req.raw, route, services) : "";
  const body =
    route.body && route.bodyFormat !== "jsonl" ? validate(route.body, parseJson(rawBody), "body") : rawBody;
  const idempotency = idempotencyScope(c, route, principal, rawBody);
  const quotas = services.ops.quotas;
  const growth = quotas && !route.public ? requestGrowth(route.operationId, body, rawBody) : null;
  const run = async () => {
    // Checked when the write runs, not before a replay: a retry of a write that fit still answers.
    if (quotas && growth) await checkQuotas(services.db, quotas, principal.userId, growth);
    return route.handle({ params, query, body, principal, ifMatch, idempotency, services });
  };
  if (idempotency !== undefined) return runKeyed(services, route, idempotency, run);
  const reply = await run();
  // The request id goes in with the other headers, so the middleware need not add it afterwards.
  const requestId = facts && { "X-Request-Id": facts.requestId };
  if (facts) facts.idInResponse = true;
  if (route.revisioned && isNotModified(c.req.raw, reply)) return notModified(reply, requestId);
  if (reply.body instanceof ReadableStream) cutOffOnFailure(reply.body, c, services.ops);
  const response = replyResponse(reply, requestId);
  return c.req.raw.method === "HEAD" ? withoutBody(response) : response;
}

/** A read whose answer the client holds already: its `If-None-Match` names the session's revision. */
function isNotModified(request: Request, reply: Reply): boolean {
  if (request.method !== "GET" && request.method !== "HEAD") return false;
  if ((reply.status ?? 200) !== 200 || reply.revision === undefined) return false;
  return noneMatchHolds(request.headers.get("if-none-match") ?? undefined, reply.revision);
}

/** 304 with the ETag and no body; a streamed body is cancelled, which lets go of what it holds. */
function notModified(reply: Reply, extra: Record<string, string> | undefined): Response {
  if (reply.body instanceof ReadableStream) reply.body.cancel().catch(() => {});
  const etag = formatEtag(reply.revision as number);
  return new Response(null, { status: 304, headers: { ...extra, ...reply.headers, etag } });
}

/**
 * A HEAD's answer: the GET's status and headers, its body cancelled. Hono answers HEAD with the
 * GET's response and drops the body without cancelling it, and a body that holds something until
 * it is read or cancelled (an export's whole-read slot, work/whole-reads.ts) would hold it for good.
 */
function withoutBody(response: Response): Response {
  response.body?.cancel().catch(() => {});
  return new Response(null, response);
}

function idempotencyScope(
  c: Context,
  route: AnyRoute,
  principal: Principal,
  rawBody: string,
): IdempotencyScope | undefined {
  const key = route.idempotent ? c.req.header("idempotency-key") : undefined;
  if (key === undefined) return undefined;
  if (!IDEMPOTENCY_KEY.test(key)) {
    throw new HttpError(400, "invalid_request", "Idempotency-Key must be 1-255 printable ASCII characters");
  }
  // The path as routed: a trailing slash makes no other request.
  const path = c.req.path.replace(/(.)\/+$/, "$1");
  const requestHash = createHash("sha256").update(`${route.operationId}\n${path}\n${rawBody}`).digest("hex");
  return { owner: principal.userId, key, requestHash };
}

async function readRouteBody(request: Request, route: AnyRoute, services: ServerServices): Promise<string> {
  if (route.bodyFormat !== "jsonl") requireJsonContentType(request);
  // A session file may be far larger than any one API call.
  const max = route.bodyFormat === "jsonl" ? services.limits.maxImportBytes : services.limits.maxBodyBytes;
  return readBodyText(request, max);
}

/**
 * The JSON answer for an error. A 5xx's cause goes on the request's one access-log line (with its
 * route and request id, ops/middleware.ts); without that middleware it is written as one line here.
 */
export function sendError(c: Context, error: unknown): Response {
  const reply = toErrorReply(error);
  if (reply.status >= 500) {
    const facts = requestFacts(c.req.raw);
    if (facts) facts.error = error;
    else {
      const done = { facts: { requestId: "", error }, method: c.req.method, path: c.req.path, durationMs: 0 };
      stderrSink(JSON.stringify(accessLine({ ...done, status: reply.status })));
    }
  }
  const headers = { "content-type": "application/json", ...reply.headers };
  return new Response(JSON.stringify(reply.body), { status: reply.status, headers });
}
