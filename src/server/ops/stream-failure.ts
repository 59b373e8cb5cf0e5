import type { HttpBindings } from "@hono/node-server";
import type { Context } from "hono";
import { requestFacts } from "../http/request-facts.js";
import { onPieceStreamFailure } from "../work/piece-stream.js";
import { describeError, logLine } from "./log-line.js";
import type { Ops } from "./ops.js";

/**
 * A streamed answer (an export, a large page) that fails after its 200 and first bytes went out:
 * the status cannot be taken back, so the client learns of it by the connection ending before the
 * body does (no last chunk). It is logged as one error line, `response cut off`, under the
 * request's id beside the request's access line (which said 200), then the connection is cut.
 *
 * Only under @hono/node-server, which hands the response over as `c.env.outgoing`; elsewhere the
 * stream errors as any stream does, for its runtime to handle.
 */
export function cutOffOnFailure(body: ReadableStream<Uint8Array>, c: Context, ops: Ops): void {
  const outgoing = (c.env as Partial<HttpBindings> | undefined)?.outgoing;
  if (!outgoing) return;
  const facts = requestFacts(c.req.raw);
  const request = { method: c.req.method, route: facts?.route ?? "other", path: c.req.path };
  onPieceStreamFailure(body, (error) => {
    const fields = {
      requestId: facts?.requestId,
      ...request,
      user: facts?.user,
      error: describeError(error),
    };
    (ops.accessLog ?? ops.errorLog)(logLine("error", "response cut off", fields));
    outgoing.destroy();
  });
}
