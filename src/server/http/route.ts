import type { Static, TObject, TSchema } from "@sinclair/typebox";
import type { Principal } from "../auth/principal.js";
import type { ServerServices } from "../services.js";

export type HttpMethod = "get" | "post" | "put" | "patch" | "delete";

export interface ResponseSpec {
  description: string;
  schema?: TSchema;
  /** Default application/json. */
  contentType?: string;
}

/**
 * One API operation, declared as data: the same object is registered with Hono, validated at the
 * edge and written into /openapi.json, so the three cannot disagree.
 */
export interface RouteSpec<
  P extends TObject = TObject,
  Q extends TObject = TObject,
  B extends TSchema = TSchema,
> {
  method: HttpMethod;
  /** Hono syntax: `/v1/sessions/:id`. */
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  /** No credential needed (health, the OpenAPI document). */
  public?: boolean;
  params?: P;
  query?: Q;
  body?: B;
  /** "json" (default when `body` is set) or "jsonl": the raw text of a pi session file (import limit). */
  bodyFormat?: "json" | "jsonl";
  /** Honours `If-Match` (412 with the current revision when stale). */
  conditional?: boolean;
  /**
   * A read whose answer is the session at its revision (sent as the ETag): an `If-None-Match`
   * naming that revision answers 304 with no body.
   */
  revisioned?: boolean;
  /** Honours `Idempotency-Key` (a retry replays the first response). */
  idempotent?: boolean;
  /** Reaches sessions in the trash (delete, restore): a replay checks its session the same way. */
  findsDeleted?: boolean;
  responses: Record<number, ResponseSpec>;
  handle(request: RouteRequest<Static<P>, Static<Q>, Static<B>>): Promise<Reply>;
}

export interface RouteRequest<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  /** Null only on public routes. */
  principal: Principal;
  /** The revision named by `If-Match`, when the route is conditional and the header present. */
  ifMatch: number | undefined;
  /** Where to remember the reply, when the request sent an Idempotency-Key (idempotent routes). */
  idempotency: IdempotencyScope | undefined;
  services: ServerServices;
}

/** A user's Idempotency-Key and the request it was first sent with. */
export interface IdempotencyScope {
  owner: string;
  key: string;
  /** SHA-256 of the operation, path and body: the same key with another request is refused. */
  requestHash: string;
}

export interface Reply {
  /** Default 200. */
  status?: number;
  body: unknown;
  /** Sent as the ETag. */
  revision?: number;
  /** Default application/json; a string body with another type is sent as is. */
  contentType?: string;
  headers?: Record<string, string>;
}

/** A route with its type parameters widened, for tables of routes (`handle` is a method: bivariant). */
export type AnyRoute = RouteSpec<TObject, TObject, TSchema>;

/** Identity with inference: keeps each route's params/query/body types checked inside `handle`. */
export function defineRoute<P extends TObject, Q extends TObject, B extends TSchema>(
  spec: RouteSpec<P, Q, B>,
): RouteSpec<P, Q, B> {
  return spec;
}
