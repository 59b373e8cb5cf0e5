import type { Server } from "node:http";
import type { HttpTimeouts } from "./ops-options.js";

/**
 * Sets the listener's timeouts (node:http's own): a client that sends its headers or its body too
 * slowly, or keeps an idle connection, is cut off instead of holding a socket. Unset values keep
 * node's defaults. The headers timeout must not exceed the request timeout (node's rule).
 */
export function applyTimeouts(
  server: Pick<Server, "requestTimeout" | "headersTimeout" | "keepAliveTimeout">,
  timeouts: HttpTimeouts = {},
): void {
  if (timeouts.requestMs !== undefined) server.requestTimeout = timeouts.requestMs;
  if (timeouts.headersMs !== undefined) server.headersTimeout = timeouts.headersMs;
  if (timeouts.keepAliveMs !== undefined) server.keepAliveTimeout = timeouts.keepAliveMs;
  if (server.requestTimeout > 0 && server.headersTimeout > server.requestTimeout) {
    server.headersTimeout = server.requestTimeout;
  }
}

/** Node cannot cut a slow client sooner than its check runs; checking more often than this buys nothing. */
const CHECK_FLOOR_MS = 50;

/**
 * How often node looks for requests past their headers or request timeout: node's
 * `connectionsCheckingInterval`, 30 s unless set, which let `--headers-timeout 1000` cut a slow
 * client up to 30 s late. Every second, or twice per timeout for one shorter than two seconds;
 * the check walks only connections with a request in progress, so once a second costs little.
 */
export function timeoutCheckIntervalMs(timeouts: HttpTimeouts = {}): number {
  const set = [timeouts.headersMs, timeouts.requestMs].filter(
    (ms): ms is number => ms !== undefined && ms > 0,
  );
  return Math.max(CHECK_FLOOR_MS, Math.min(1_000, ...set.map((ms) => Math.floor(ms / 2))));
}
