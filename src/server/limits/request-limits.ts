import type { Context, MiddlewareHandler } from "hono";
import { HttpError } from "../http/http-error.js";
import { sendError } from "../http/register.js";
import { clientAddress } from "./client-address.js";
import { RateLimiter, type RateLimitOptions, type RateVerdict, rateLimitHeaders } from "./rate-limit.js";
import type { SharedAuthenticator } from "./shared-auth.js";

export interface RequestLimitOptions {
  rate: RateLimitOptions;
  /** Reverse proxies in front whose X-Forwarded-For is believed (0: none, the socket's peer counts). */
  trustedProxies: number;
}

/**
 * Rate limits per user, not per credential (ten keys of one user share one bucket), and per client
 * address for requests without a valid credential: those are counted before any key lookup, so a
 * flood of made-up keys costs a map lookup each once its address is out of tokens. Every answer
 * carries `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset`; a 429 also `Retry-After`.
 */
export function requestLimits(auth: SharedAuthenticator, options: RequestLimitOptions): MiddlewareHandler {
  const users = new RateLimiter(options.rate);
  const addresses = new RateLimiter(options.rate);
  return async (c, next) => {
    const header = c.req.header("authorization");
    const address = () => clientAddress(c, options.trustedProxies);
    if (header === undefined) return limited(c, addresses.consume(address()), next);
    const before = addresses.peek(address());
    // An address out of tokens is refused before its (probably bad) credential is looked up.
    if (!before.allowed) return refuse(c, before);
    const outcome = auth.begin(header);
    try {
      const principal = await outcome.catch(() => undefined);
      // A refused credential costs its address a token; the route then answers 401 itself.
      if (principal === undefined) return await limited(c, addresses.consume(address()), next);
      return await limited(c, users.consume(principal.userId), next);
    } finally {
      auth.end(header);
    }
  };
}

async function limited(c: Context, verdict: RateVerdict, next: () => Promise<void>): Promise<Response> {
  if (!verdict.allowed) return refuse(c, verdict);
  await next();
  for (const [name, value] of Object.entries(rateLimitHeaders(verdict))) c.res.headers.set(name, value);
  return c.res;
}

function refuse(c: Context, verdict: RateVerdict): Response {
  return sendError(c, new HttpError(429, "rate_limited", "Too many requests", rateLimitHeaders(verdict)));
}
