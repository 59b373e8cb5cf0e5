import type { IncomingMessage } from "node:http";
import type { Context } from "hono";

/**
 * The address a request comes from, for limits on requests without a valid credential. The
 * socket's peer, unless `trustedProxies` (`--trust-proxy N`) says N reverse proxies stand in
 * front: then the address the nearest of them saw, read from `X-Forwarded-For` counting N
 * entries from the right (each proxy appends the peer it saw; entries further left are whatever
 * the client chose to send, so they are never trusted).
 */
export function clientAddress(c: Context, trustedProxies: number): string {
  const peer = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.socket?.remoteAddress;
  if (trustedProxies <= 0) return peer ?? "unknown";
  const forwarded = c.req.header("x-forwarded-for");
  if (!forwarded) return peer ?? "unknown";
  const hops = forwarded.split(",").map((hop) => hop.trim());
  const index = Math.max(0, hops.length - trustedProxies);
  return hops[index] || peer || "unknown";
}
