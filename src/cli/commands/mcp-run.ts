import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { CommandContext } from "../command-context.js";
import { UsageError } from "../exit.js";
import type { GlobalOptions } from "../location.js";
import { LocalSource } from "../mcp/local-source.js";
import { createMcpServer } from "../mcp/server.js";
import type { SessionSource } from "../mcp/source.js";

export interface McpOptions {
  server?: string;
  allowWrites?: boolean;
}

/** The environment variable that holds the service's API key (never an argument: `ps` shows those). */
export const API_KEY_ENV = "SESSIONTREE_API_KEY";

/**
 * Serves the MCP protocol on stdin/stdout until the client closes stdin. Nothing but the protocol
 * goes to stdout; what the server has to say goes to stderr.
 */
export async function runMcp(
  ctx: CommandContext,
  options: McpOptions,
  run: { globals: GlobalOptions; version: string },
): Promise<void> {
  const log = (line: string) => ctx.io.err(`sessiontree mcp: ${line}\n`);
  const source = await sourceFor(ctx, options, run.globals);
  const server = createMcpServer({ source, cwd: ctx.io.cwd, log }, run.version);
  const closed = new Promise<void>((resolve) => {
    process.stdin.once("end", resolve);
    process.stdin.once("close", resolve);
  });
  await server.connect(new StdioServerTransport());
  log(`serving sessions from ${source.where}, ${source.writer ? "writes allowed" : "read-only"}`);
  if (process.stdin.isTTY) log("waiting for an MCP client on stdin (an agent starts this command itself)");
  await closed;
  await server.close();
}

async function sourceFor(
  ctx: CommandContext,
  options: McpOptions,
  globals: GlobalOptions,
): Promise<SessionSource> {
  const allowWrites = options.allowWrites === true;
  if (options.server === undefined) return new LocalSource(ctx.location, ctx.io.cwd, { allowWrites });
  if (globals.root !== undefined || globals.pi !== undefined)
    throw new UsageError("--server reads the service's sessions: give it without --root or --pi");
  let url: URL;
  try {
    url = new URL(options.server);
  } catch {
    throw new UsageError(`--server takes the service's URL (http://host:port), not "${options.server}"`);
  }
  const token = ctx.io.env[API_KEY_ENV];
  if (!token) throw new UsageError(`--server needs an API key in $${API_KEY_ENV} (see \`sessiontree keys\`)`);
  // The client and the service source are loaded only for --server.
  const [{ SessionTreeClient }, { ServiceSource }] = await Promise.all([
    import("../../client/index.js"),
    import("../mcp/service-source.js"),
  ]);
  const baseUrl = url.toString().replace(/\/+$/, "");
  return new ServiceSource(new SessionTreeClient({ baseUrl, token }), baseUrl, { allowWrites });
}
