import { createPublicKey, createSecretKey, type KeyObject } from "node:crypto";
import { jwtVerify } from "jose";
import type { ServiceDb } from "../db/service-db.js";
import { HttpError } from "../http/http-error.js";
import { apiKeyId, keyMatches, looksLikeApiKey } from "./api-keys.js";
import type { Principal } from "./principal.js";

/** JWTs are optional: verified with an HS256 secret or a public key (PEM), the user is `sub`. */
export interface JwtOptions {
  /** Shared secret for HS256. */
  secret?: string;
  /** SPKI PEM public key (RS256, ES256, EdDSA, ...). */
  publicKey?: string;
  issuer?: string;
  audience?: string;
  /** @default ["HS256"] with a secret, ["RS256","ES256","EdDSA"] with a public key */
  algorithms?: string[];
}

const unauthorized = (message: string) =>
  new HttpError(401, "unauthorized", message, { "WWW-Authenticate": 'Bearer realm="sessiontree"' });

/**
 * Resolves the `Authorization: Bearer …` header into a principal on every request. API keys are
 * looked up each time (no cache), so a revoked key is refused at once, on every instance.
 */
export class Authenticator {
  private readonly jwtKey: KeyObject | undefined;
  private readonly jwtAlgorithms: string[];

  constructor(
    private readonly db: ServiceDb,
    private readonly jwt: JwtOptions | undefined,
  ) {
    if (jwt?.secret) this.jwtKey = createSecretKey(Buffer.from(jwt.secret, "utf8"));
    else if (jwt?.publicKey) this.jwtKey = createPublicKey(jwt.publicKey);
    this.jwtAlgorithms = jwt?.algorithms ?? (jwt?.secret ? ["HS256"] : ["RS256", "ES256", "EdDSA"]);
  }

  async authenticate(header: string | undefined): Promise<Principal> {
    const match = header === undefined ? null : /^Bearer\s+(\S{1,4096})\s*$/i.exec(header);
    if (!match?.[1]) throw unauthorized("A bearer credential is required");
    const token = match[1];
    return looksLikeApiKey(token) ? this.checkApiKey(token) : this.checkJwt(token);
  }

  private async checkApiKey(token: string): Promise<Principal> {
    const id = apiKeyId(token);
    const row = id === null ? undefined : await this.db.findKey(id);
    if (!row || row.revokedAt !== null || !keyMatches(token, row.keyHash)) {
      throw unauthorized("The API key is unknown or revoked");
    }
    return { userId: row.userId, credentialId: `key:${row.id}`, kind: "api_key" };
  }

  private async checkJwt(token: string): Promise<Principal> {
    if (!this.jwtKey) throw unauthorized("The credential is not a valid API key");
    try {
      const { payload } = await jwtVerify(token, this.jwtKey, {
        algorithms: this.jwtAlgorithms,
        issuer: this.jwt?.issuer,
        audience: this.jwt?.audience,
      });
      const sub = payload.sub;
      if (typeof sub !== "string" || sub.length === 0 || sub.length > 256) throw new Error("no subject");
      return { userId: sub, credentialId: `jwt:${sub}`, kind: "jwt" };
    } catch {
      throw unauthorized("The token is invalid or expired");
    }
  }
}
