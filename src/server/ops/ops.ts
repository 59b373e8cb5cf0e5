import type { KeyPolicy } from "../auth/key-limits.js";
import { type LineSink, stderrSink, stdoutSink } from "./access-log.js";
import type { CorsPolicy } from "./cors.js";
import { ServerMetrics } from "./metrics.js";
import type { OpsOptions } from "./ops-options.js";
import type { Quotas } from "./quotas.js";

/** What a running server keeps for its operator: metrics, the log, CORS, quotas, key limits. */
export interface Ops {
  metrics: ServerMetrics;
  /** Where every request's line goes; null: no access log (5xx lines still go to `errorLog`). */
  accessLog: LineSink | null;
  errorLog: LineSink;
  cors: CorsPolicy | null;
  /** Undefined: no quotas (no usage query on writes). */
  quotas: Partial<Quotas> | undefined;
  keys: KeyPolicy;
}

export function createOps(options: OpsOptions = {}): Ops {
  const log = options.accessLog;
  const quotas = options.quotas && Object.values(options.quotas).some((v) => v !== undefined);
  return {
    metrics: new ServerMetrics(),
    accessLog: typeof log === "function" ? log : log ? stdoutSink : null,
    errorLog: typeof log === "function" ? log : stderrSink,
    cors: options.corsOrigin?.length ? { origins: options.corsOrigin } : null,
    quotas: quotas ? options.quotas : undefined,
    keys: options.keys ?? {},
  };
}
