import type { AddressInfo } from "node:net";
import { createAdaptorServer } from "@hono/node-server";
import { createViewerApp } from "./app.js";
import type { ViewerSource } from "./source.js";

export interface StartViewerOptions {
  source: ViewerSource;
  /** 0 picks a free port. @default 7766 */
  port?: number;
  /** When the port is taken, take a free one instead of failing. @default false */
  fallbackPort?: boolean;
}

export interface RunningViewer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** The default port of `sessiontree view`. */
export const DEFAULT_VIEWER_PORT = 7766;

/**
 * Serves the viewer on 127.0.0.1 only (it shows private history), answering only requests
 * addressed to that host and port.
 */
export async function startViewer(options: StartViewerOptions): Promise<RunningViewer> {
  let port = -1;
  const app = createViewerApp(options.source, {
    isAllowedHost: (host) => host === `127.0.0.1:${port}` || host === `localhost:${port}`,
  });
  const server = createAdaptorServer({ fetch: app.fetch });
  const wanted = options.port ?? DEFAULT_VIEWER_PORT;
  try {
    await listen(server, wanted);
  } catch (error) {
    if (!options.fallbackPort || (error as NodeJS.ErrnoException).code !== "EADDRINUSE") throw error;
    await listen(server, 0);
  }
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/`,
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        if ("closeAllConnections" in server) server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

function listen(server: ReturnType<typeof createAdaptorServer>, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once("error", onError);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", onError);
      resolve();
    });
  });
}
