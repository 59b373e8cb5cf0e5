import type { SessionStore } from "../store/store.js";
import type { Authenticator } from "./auth/authenticate.js";
import type { ServiceDb } from "./db/service-db.js";
import type { Ops } from "./ops/ops.js";
import type { Limits } from "./options.js";
import type { SessionQueue } from "./session-queue.js";

/** Everything a route handler may use; built once per server. */
export interface ServerServices {
  store: SessionStore;
  db: ServiceDb;
  auth: Authenticator;
  limits: Limits;
  queue: SessionQueue;
  idempotencyTtlMs: number;
  /** Metrics, logs, CORS, quotas, key limits: the operator's side of the server's options. */
  ops: Ops;
  now(): Date;
}
