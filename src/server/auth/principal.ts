/** Who is calling: established from the credential alone, never from a path or a body field. */
export interface Principal {
  userId: string;
  /** What to rate-limit and audit by: `key:<id>` or `jwt:<sub>`. */
  credentialId: string;
  kind: "api_key" | "jwt";
}
