/** Who is calling: established from the credential alone, never from a path or a body field. */
export interface Principal {
  userId: string;
  /** What to rate-limit and audit by: `key:<id>` or `jwt:<sub>`. */
  credentialId: string;
  kind: "api_key" | "jwt";
  /**
   * When the credential stops being accepted (ISO time): a JWT's `exp`, a key's expiry; null when
   * it has none. A key made with this credential expires no later (key-limits.ts).
   */
  expiresAt?: string | null;
}
