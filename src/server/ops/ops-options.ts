import type { KeyPolicy } from "../auth/key-limits.js";
import type { Quotas } from "./quotas.js";

/** Timeouts of the HTTP listener (node:http's own settings), in ms. */
export interface HttpTimeouts {
  /** Longest time to receive a whole request. @default 300_000 (node's own default) */
  requestMs?: number;
  /** Longest time to receive the request's headers. @default 60_000 */
  headersMs?: number;
  /** How long an idle keep-alive connection stays open. @default 5_000 */
  keepAliveMs?: number;
}

/** What an operator sets for a server in production (see docs/server.md, "In production"). */
export interface OpsOptions {
  /** Browser origins allowed to call the API (CORS); "*" allows any. None: no CORS headers at all. */
  corsOrigin?: string[];
  /**
   * Access log: one JSON object per line per request. True writes to stdout; a function receives
   * each line. @default false (the `serve` command turns it on)
   */
  accessLog?: boolean | ((line: string) => void);
  /** Per-user quotas; a write past one answers 403 `quota_exceeded`. Unset: unlimited. */
  quotas?: Partial<Quotas>;
  /** Lifetime and number of API keys made through the API. */
  keys?: KeyPolicy;
  timeouts?: HttpTimeouts;
}
