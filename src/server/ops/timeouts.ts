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
