import type { Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { type ServerType, serve } from "@hono/node-server";
import type { Hono } from "hono";
import type { HttpTimeouts } from "../ops/ops-options.js";
import { applyTimeouts, timeoutCheckIntervalMs } from "../ops/timeouts.js";
import { Drain } from "./drain.js";
import { InFlight } from "./in-flight.js";

export interface ListenOptions {
  host: string;
  port: number;
  /** PEM certificate chain and key: HTTPS (node:https) instead of plain HTTP. */
  tls?: { cert: string; key: string };
  /** The listener's timeouts (node's defaults when unset). */
  timeouts?: HttpTimeouts;
}

export interface Listener {
  url: string;
  port: number;
  /** The node:http (or node:https) server, for its timeouts. */
  server: ServerType;
  /**
   * Stops accepting, lets in-flight requests finish for up to `graceMs`, then cuts what is left;
   * resolves once no handler is running either (within the same grace period).
   */
  close(graceMs: number): Promise<void>;
}

/**
 * Serves `app` on host:port, over TLS when a certificate is given, with the timeouts given (checked
 * often enough to hold: see `timeoutCheckIntervalMs`); resolves once listening.
 */
export function listen(app: Hono, options: ListenOptions): Promise<Listener> {
  return new Promise((resolve, reject) => {
    const { host, port, tls, timeouts } = options;
    // Read by node when the server starts listening: it cannot be changed afterwards.
    const checking = { connectionsCheckingInterval: timeoutCheckIntervalMs(timeouts) };
    const secure = tls
      ? { createServer: createHttpsServer, serverOptions: { ...checking, cert: tls.cert, key: tls.key } }
      : { serverOptions: checking };
    let server: ServerType | undefined;
    const handlers = new InFlight();
    const ready = (info: AddressInfo) => {
      const scheme = tls ? "https" : "http";
      const url = `${scheme}://${host.includes(":") ? `[${host}]` : host}:${info.port}`;
      const drain = new Drain(server as ServerType);
      // The connections first (answers still owed go out), then the handlers still running.
      const close = async (graceMs: number) => {
        const started = Date.now();
        await drain.close(graceMs);
        await handlers.idle(Math.max(0, graceMs - (Date.now() - started)));
      };
      resolve({ url, port: info.port, server: server as ServerType, close });
    };
    const fetch: typeof app.fetch = (...args) => handlers.track(app.fetch(...args));
    server = serve({ fetch, port, hostname: host, ...secure }, ready);
    applyTimeouts(server as Server, timeouts);
    server.once("error", reject);
  });
}

/** Loopback addresses: listening on anything else without TLS sends credentials in clear text. */
export function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\./.test(host) || host === "[::1]";
}

/** The warning `serve` prints when it listens beyond loopback over plain HTTP (null when none is due). */
export function plainHttpWarning(host: string, tls: boolean): string | null {
  if (tls || isLoopback(host)) return null;
  return (
    `warning: listening on ${host} without TLS: bearer credentials cross the network in clear text. ` +
    "Pass --tls-cert/--tls-key, or keep it on 127.0.0.1 behind a TLS reverse proxy (docs/server.md)."
  );
}
