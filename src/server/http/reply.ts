import type { StoredResponse } from "../db/service-db.js";
import { formatEtag } from "./etag.js";
import type { Reply } from "./route.js";

/** Where a session is, as a 201 that made it says in `Location` (RFC 9110 §15.3.2). */
export function sessionLocation(sessionId: string): string {
  return `/v1/sessions/${encodeURIComponent(sessionId)}`;
}

/** A route's reply as it is sent, and remembered under an Idempotency-Key. */
export function serializeReply(reply: Reply): StoredResponse {
  // A stream is sent once and gone: nothing a replay could send again.
  if (reply.body instanceof ReadableStream) throw new Error("A streamed reply cannot be remembered");
  const contentType = reply.contentType ?? "application/json";
  const body = typeof reply.body === "string" && reply.contentType ? reply.body : JSON.stringify(reply.body);
  const etag = reply.revision === undefined ? null : formatEtag(reply.revision);
  return { status: reply.status ?? 200, body, contentType, etag };
}

/**
 * Headers go in with the constructor, as a plain object: @hono/node-server's lightweight Response
 * then writes them straight to the socket instead of building a full web Response.
 */
export function toHttpResponse(stored: StoredResponse, extra: Record<string, string> = {}): Response {
  const headers: Record<string, string> = { "content-type": stored.contentType, ...extra };
  if (stored.etag) headers.etag = stored.etag;
  return new Response(stored.status === 204 ? null : stored.body, { status: stored.status, headers });
}

/** The reply as sent: a ReadableStream body goes out as it is read (chunked), anything else whole. */
export function replyResponse(reply: Reply, extra?: Record<string, string>): Response {
  const more = extra ? { ...extra, ...reply.headers } : reply.headers;
  if (!(reply.body instanceof ReadableStream)) return toHttpResponse(serializeReply(reply), more);
  const headers: Record<string, string> = {
    "content-type": reply.contentType ?? "application/octet-stream",
    ...more,
  };
  if (reply.revision !== undefined) headers.etag = formatEtag(reply.revision);
  return new Response(reply.body, { status: reply.status ?? 200, headers });
}
