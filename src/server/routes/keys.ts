import { NotFoundError } from "../../core/errors.js";
import { createApiKey } from "../auth/key-admin.js";
import { requestKeyLimits } from "../auth/key-limits.js";
import type { ApiKeyRow } from "../db/service-db.js";
import { defineRoute } from "../http/route.js";
import { CreatedKey, CreateKeyBody, KeyList, KeyParams } from "../schemas.js";
import { AUTH_ERRORS, BODY_ERRORS, error, SESSION_ERRORS } from "./common.js";

const tag = "account";

function keyInfo(row: ApiKeyRow) {
  const { id, name, createdAt, revokedAt, expiresAt, lastUsedAt } = row;
  return { id, name, createdAt, revokedAt, expiresAt, lastUsedAt };
}

export const listKeys = defineRoute({
  method: "get",
  path: "/v1/keys",
  operationId: "listKeys",
  summary: "This user's API keys (never the secrets)",
  tag,
  responses: { 200: { description: "Keys", schema: KeyList }, ...AUTH_ERRORS },
  async handle({ principal, services }) {
    return { body: { items: (await services.db.listKeys(principal.userId)).map(keyInfo) } };
  },
});

export const createKey = defineRoute({
  method: "post",
  path: "/v1/keys",
  operationId: "createKey",
  summary: "A new API key for this user; the key is shown once",
  tag,
  body: CreateKeyBody,
  responses: {
    201: { description: "Created", schema: CreatedKey },
    ...AUTH_ERRORS,
    ...BODY_ERRORS,
    403: error("The user is disabled, or the credential expires now: no key can outlive it"),
    409: error("The user holds the most live keys allowed (too_many_keys): revoke one first"),
  },
  async handle({ body, principal, services }) {
    // Bounded by the credential making it and the server's policy (auth/key-limits.ts).
    const limits = requestKeyLimits(principal, services.ops.keys);
    const { key, row } = await createApiKey(
      services.db,
      principal.userId,
      body.name ?? "",
      services.now(),
      limits,
    );
    return { status: 201, body: { key, info: keyInfo(row) } };
  },
});

export const revokeKey = defineRoute({
  method: "delete",
  path: "/v1/keys/:keyId",
  operationId: "revokeKey",
  summary: "Revoke one of this user's keys; refused at once on every instance",
  tag,
  params: KeyParams,
  responses: { 204: { description: "Revoked" }, ...SESSION_ERRORS },
  async handle({ params, principal, services }) {
    const revoked = await services.db.revokeKey(principal.userId, params.keyId, services.now().toISOString());
    if (!revoked) throw new NotFoundError("entry_not_found", "No such live key");
    return { status: 204, body: null };
  },
});

export const keyRoutes = [listKeys, createKey, revokeKey];
