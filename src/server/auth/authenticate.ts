import { createPublicKey, createSecretKey, type KeyObject } from "node:crypto";
import { jwtVerify } from "jose";
import type { ServiceDb } from "../db/service-db.js";
import { HttpError } from "../http/http-error.js";
import { apiKeyId, keyMatches, looksLikeApiKey } from "./api-keys.js";
import { expiryIso } from "./key-limits.js";
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
  /**
   * Accept tokens without `exp` (they never expire, and keys they make neither). Off: such a
   * token is refused, as a token that cannot expire cannot be taken back. @default false
   */
  allowNoExpiry?: boolean;
}

/** A key's last use is written at most once a minute, so authenticating stays a read. */
const TOUCH_INTERVAL_MS = 60_000;

const unauthorized = (message: string) =>
  new HttpError(401, "unauthorized", message, { "WWW-Authenticate": 'Bearer realm="sessiontree"' });

const disabled = () => new HttpError(403, "user_disabled", "This user is disabled on this server");

/**
 * Resolves the `Authorization: Bearer …` header into a principal on every request. API keys and
 * disabled users are looked up each time (no cache), so a revoked key or a disabled user is
 * refused at once, on every instance.
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
    if (looksLikeApiKey(token)) return this.checkApiKey(token, new Date());
    const principal = await this.checkJwt(token);
    if (await this.db.findDisabledUser(principal.userId)) throw disabled();
    return principal;
  }

  /** One query (the key and its user's disabled row); a write only when the last use is a minute old. */
  private async checkApiKey(token: string, now: Date): Promise<Principal> {
    const id = apiKeyId(token);
    const row = id === null ? undefined : await this.db.findKey(id);
    if (!row || row.revokedAt !== null || !keyMatches(token, row.keyHash)) {
      throw unauthorized("The API key is unknown or revoked");
    }
    const at = now.toISOString();
    if (row.expiresAt !== null && row.expiresAt <= at) throw unauthorized("The API key has expired");
    if (row.userDisabled) throw disabled();
    const since = new Date(now.getTime() - TOUCH_INTERVAL_MS).toISOString();
    // The row read says whether the minute has passed: the UPDATE (its own condition kept, for
    // other instances touching the key meanwhile) is sent only then.
    if (row.lastUsedAt === null || row.lastUsedAt < since) await this.db.touchKey(row.id, at, since);
    return { userId: row.userId, credentialId: `key:${row.id}`, kind: "api_key", expiresAt: row.expiresAt };
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
      // jose checks `exp` when present; a token without one would be valid for ever.
      if (payload.exp === undefined && !this.jwt?.allowNoExpiry) throw new Error("no expiry");
      const expiresAt = payload.exp === undefined ? null : expiryIso(payload.exp * 1000);
      return { userId: sub, credentialId: `jwt:${sub}`, kind: "jwt", expiresAt };
    } catch {
      throw unauthorized("The token is invalid or expired");
    }
  }
}
