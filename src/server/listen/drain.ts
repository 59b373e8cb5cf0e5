import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { ServerType } from "@hono/node-server";

/**
 * A graceful stop: no new connections, requests already received are answered (with
 * `Connection: close`, so a keep-alive client cannot keep one connection busy forever), idle
 * keep-alive connections are closed, and after the grace period whatever is left is cut.
 */
export class Drain {
  private draining = false;
  private readonly open = new Set<ServerResponse>();
  private closed: Promise<void> | undefined;

  constructor(private readonly server: ServerType) {
    server.prependListener("request", (_request: IncomingMessage, response: ServerResponse) => {
      if (this.draining) closeAfter(response);
      this.open.add(response);
      response.once("close", () => this.open.delete(response));
    });
  }

  close(graceMs: number): Promise<void> {
    this.closed ??= new Promise<void>((resolve) => {
      this.draining = true;
      for (const response of this.open) closeAfter(response);
      const http = this.server as Server;
      const cut = setTimeout(() => http.closeAllConnections(), graceMs);
      // close() stops accepting and ends the connections idle now; every answer from here on
      // carries Connection: close, so a busy connection ends after its answer instead of idling.
      // (No sweep of connections that go idle: closing one as its client sends the next request
      // would reset that request; with Connection: close none goes idle.)
      http.close(() => {
        clearTimeout(cut);
        resolve();
      });
      http.closeIdleConnections();
    });
    return this.closed;
  }
}

/** The answer ends its connection: Node then sends `Connection: close` and closes the socket after it. */
function closeAfter(response: ServerResponse): void {
  if (!response.headersSent) response.setHeader("Connection", "close");
  response.shouldKeepAlive = false;
}
