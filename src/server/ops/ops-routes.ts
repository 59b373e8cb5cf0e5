import { Type } from "@sinclair/typebox";
import { HttpError } from "../http/http-error.js";
import { defineRoute } from "../http/route.js";
import type { ServerServices } from "../services.js";
import { packageVersion } from "./version.js";

const tag = "meta";
/** A database that does not answer in this time is not ready. */
const READY_TIMEOUT_MS = 2_000;

/**
 * Readiness: the database answers a query (and an SQLite file is still the one opened). A load
 * balancer sends traffic only while this is 200.
 */
export const readiness = defineRoute({
  method: "get",
  path: "/readyz",
  operationId: "readiness",
  summary: "Readiness: 200 when the database answers, 503 when it does not",
  tag,
  public: true,
  responses: {
    200: { description: "Ready", schema: Type.Object({ ok: Type.Boolean(), database: Type.String() }) },
    503: { description: "The database does not answer" },
  },
  async handle({ services }) {
    await pingDatabase(services);
    return { body: { ok: true, database: services.db.kind } };
  },
});

async function pingDatabase(services: ServerServices): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("timed out")), READY_TIMEOUT_MS);
  });
  try {
    await Promise.race([services.db.ready(), timeout]);
  } catch (error) {
    // A public route: the driver's words (a host, a port, a user name) go to the log, not the client.
    const notReady = new HttpError(503, "not_ready", "The database does not answer", { "Retry-After": "1" });
    notReady.cause = error;
    throw notReady;
  } finally {
    clearTimeout(timer);
  }
}

export const versionRoute = (apiVersion: string) =>
  defineRoute({
    method: "get",
    path: "/version",
    operationId: "version",
    summary: "The server's version and API version",
    tag,
    public: true,
    responses: {
      200: {
        description: "Versions",
        schema: Type.Object({ version: Type.String(), api: Type.String(), node: Type.String() }),
      },
    },
    async handle() {
      return { body: { version: packageVersion(), api: apiVersion, node: process.version } };
    },
  });

/**
 * Prometheus text. Public like /healthz: it holds counts and timings by route, never a user, a
 * session or a path; an operator who wants it private keeps it off the public listener (docs).
 */
export const metricsRoute = defineRoute({
  method: "get",
  path: "/metrics",
  operationId: "metrics",
  summary: "Prometheus metrics: requests, latency, store operations, database pool",
  tag,
  public: true,
  responses: { 200: { description: "Prometheus text exposition format", contentType: "text/plain" } },
  async handle({ services }) {
    const metrics = services.ops?.metrics;
    if (!metrics) throw new HttpError(404, "route_not_found", "This server keeps no metrics");
    return { body: await metrics.text(), contentType: metrics.contentType };
  },
});
