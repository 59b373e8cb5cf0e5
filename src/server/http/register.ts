import { createHash } from "node:crypto";
import type { Context, Hono } from "hono";
import type { Principal } from "../auth/principal.js";
import type { StoredResponse } from "../db/service-db.js";
import type { ServerServices } from "../services.js";
import { parseJson, readBodyText, requireJsonContentType } from "./body.js";
import { toErrorReply } from "./errors.js";
import { formatEtag, parseIfMatch } from "./etag.js";
import { HttpError } from "./http-error.js";
import type { AnyRoute, Reply } from "./route.js";
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
  const principal = route.public
    ? NO_PRINCIPAL
    : await services.auth.authenticate(c.req.header("authorization"));
  if (!route.public && services.rateLimiter) {
    const wait = services.rateLimiter.take(principal.credentialId);
    if (wait > 0)
      throw new HttpError(429, "rate_limited", "Too many requests", { "Retry-After": String(wait) });
  }
  type Fields = Record<string, unknown>;
  const params: Fields = route.params ? validate<Fields>(route.params, c.req.param(), "params") : {};
  const query: Fields = route.query ? validateQuery<Fields>(route.query, c.req.query()) : {};
  const ifMatch = route.conditional ? parseIfMatch(c.req.header("if-match")) : undefined;
  const rawBody = route.body ? await readRouteBody(c.req.raw, route, services) : "";
  const body =
    route.body && route.bodyFormat !== "jsonl" ? validate(route.body, parseJson(rawBody), "body") : rawBody;
  const run = () => route.handle({ params, query, body, principal, ifMatch, services });

  const idempotencyKey = route.idempotent ? c.req.header("idempotency-key") : undefined;
  if (idempotencyKey === undefined) return toResponse(await run());
  if (!IDEMPOTENCY_KEY.test(idempotencyKey)) {
    throw new HttpError(400, "invalid_request", "Idempotency-Key must be 1-255 printable ASCII characters");
  }
  const hash = createHash("sha256").update(`${route.operationId}\n${c.req.path}\n${rawBody}`).digest("hex");
  return runIdempotent(services, principal.userId, idempotencyKey, hash, run);
}

async function readRouteBody(request: Request, route: AnyRoute, services: ServerServices): Promise<string> {
  if (route.bodyFormat !== "jsonl") requireJsonContentType(request);
  // A session file may be far larger than any one API call.
  const max = route.bodyFormat === "jsonl" ? services.limits.maxImportBytes : services.limits.maxBodyBytes;
  return readBodyText(request, max);
}

/**
 * Runs a write at most once per (user, key): the first request claims the key, its successful
 * response is stored and replayed to every retry. A retry with a different body is refused (422);
 * one that arrives while the first is still running gets 409. Failures are not remembered, so a
 * failed request can be retried with the same key.
 */
async function runIdempotent(
  services: ServerServices,
  owner: string,
  key: string,
  hash: string,
  run: () => Promise<Reply>,
): Promise<Response> {
  const claim = await claimKey(services, owner, key, hash);
  if (claim !== "claimed") {
    if (claim.requestHash !== hash) {
      throw new HttpError(
        422,
        "idempotency_key_reused",
        "This Idempotency-Key was used for a different request",
      );
    }
    if (!claim.response)
      throw new HttpError(409, "idempotency_in_progress", "A request with this key is in progress");
    return replay(claim.response);
  }
  let reply: Reply;
  try {
    reply = await run();
  } catch (error) {
    await services.db.releaseIdempotent(owner, key);
    throw error;
  }
  const stored = serialize(reply);
  await services.db.completeIdempotent(owner, key, stored);
  return replay(stored);
}

/** A claim still pending after this long was left by a crashed instance: it may be taken over. */
const ABANDONED_CLAIM_MS = 60_000;

async function claimKey(services: ServerServices, owner: string, key: string, hash: string) {
  const now = services.now();
  const claim = await services.db.claimIdempotent(owner, key, hash, now.toISOString());
  if (
    claim === "claimed" ||
    claim.response ||
    now.getTime() - Date.parse(claim.claimedAt) < ABANDONED_CLAIM_MS
  ) {
    return claim;
  }
  await services.db.releaseIdempotent(owner, key);
  return services.db.claimIdempotent(owner, key, hash, now.toISOString());
}

function serialize(reply: Reply): StoredResponse {
  const contentType = reply.contentType ?? "application/json";
  const body = typeof reply.body === "string" && reply.contentType ? reply.body : JSON.stringify(reply.body);
  const etag = reply.revision === undefined ? null : formatEtag(reply.revision);
  return { status: reply.status ?? 200, body, contentType, etag };
}

/**
 * Headers go in with the constructor, as a plain object: @hono/node-server's lightweight Response
 * then writes them straight to the socket instead of building a full web Response.
 */
function replay(stored: StoredResponse, extra: Record<string, string> = {}): Response {
  const headers: Record<string, string> = { "content-type": stored.contentType, ...extra };
  if (stored.etag) headers.etag = stored.etag;
  return new Response(stored.status === 204 ? null : stored.body, { status: stored.status, headers });
}

function toResponse(reply: Reply): Response {
  return replay(serialize(reply), reply.headers);
}

export function sendError(_c: Context, error: unknown): Response {
  const reply = toErrorReply(error);
  if (reply.status >= 500) console.error("sessiontree server error:", error);
  const headers = { "content-type": "application/json", ...reply.headers };
  return new Response(JSON.stringify(reply.body), { status: reply.status, headers });
}
