import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import { packageVersion } from "./version.js";

/** A pool whose use is reported (pg.Pool has these three counters). */
export interface PoolGauges {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The server's Prometheus metrics, in a registry of its own (several servers in one process do
 * not mix their counts). Served as text at /metrics.
 */
export class ServerMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<"method" | "route" | "status">;
  private readonly latency: Histogram<"method" | "route">;
  private readonly storeOps: Histogram<"operation" | "outcome">;
  private readonly pools: Array<{ name: string; pool: PoolGauges }> = [];

  constructor() {
    const registers = [this.registry];
    this.requests = new Counter({
      name: "sessiontree_http_requests_total",
      help: "HTTP requests by route pattern and status",
      labelNames: ["method", "route", "status"],
      registers,
    });
    this.latency = new Histogram({
      name: "sessiontree_http_request_duration_seconds",
      help: "Time to answer a request, by route pattern",
      labelNames: ["method", "route"],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.storeOps = new Histogram({
      name: "sessiontree_store_operation_duration_seconds",
      help: "Time of each session store call, by operation and outcome (ok or error)",
      labelNames: ["operation", "outcome"],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    const pools = this.pools;
    new Gauge({
      name: "sessiontree_db_pool_connections",
      help: "Database pool connections: total, idle, and requests waiting for one",
      labelNames: ["pool", "state"],
      registers,
      collect() {
        this.reset();
        for (const { name, pool } of pools) {
          this.set({ pool: name, state: "total" }, pool.totalCount);
          this.set({ pool: name, state: "idle" }, pool.idleCount);
          this.set({ pool: name, state: "waiting" }, pool.waitingCount);
        }
      },
    });
    new Gauge({
      name: "sessiontree_build_info",
      help: "Always 1; the version is the label",
      labelNames: ["version"],
      registers,
    }).set({ version: packageVersion() }, 1);
    collectDefaultMetrics({ register: this.registry, prefix: "sessiontree_" });
  }

  observeRequest(method: string, route: string, status: number, seconds: number): void {
    this.requests.inc({ method, route, status: String(status) });
    this.latency.observe({ method, route }, seconds);
  }

  observeStore(operation: string, ok: boolean, seconds: number): void {
    this.storeOps.observe({ operation, outcome: ok ? "ok" : "error" }, seconds);
  }

  watchPool(name: string, pool: PoolGauges): void {
    this.pools.push({ name, pool });
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
