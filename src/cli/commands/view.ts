import { resolve } from "node:path";
import type { Command } from "commander";
import { defaultPiAgentDir } from "../../file/paths.js";
import { parseInteger } from "../option-parsers.js";

/**
 * The viewer's default port, for the help text: viewer/serve.ts's DEFAULT_VIEWER_PORT, which cannot
 * be imported here without loading the HTTP server for every command (a test keeps the two equal).
 */
const VIEWER_PORT_HELP = 7766;

interface ViewOptions {
  root?: string;
  /** `--pi` alone: pi's default directory; `--pi DIR`: that one. */
  pi?: string | boolean;
  port?: number;
  open?: boolean;
}

/**
 * `sessiontree view`: the tree viewer on 127.0.0.1, over our root and pi's agent directory.
 * `--root` and `--pi` are taken from the program when it defines them globally, else defined here.
 */
export function register(program: Command): void {
  const command = program
    .command("view")
    .description("open the session tree viewer in the browser (sessiontree's sessions and pi's)")
    .option(
      "-p, --port <n>",
      `port on 127.0.0.1 (0: any free port; default ${VIEWER_PORT_HELP})`,
      parseInteger(0, 65535),
    )
    .option("--no-open", "print the address without opening a browser");
  const has = (flag: string) => program.options.some((o) => o.long === flag);
  if (!has("--root"))
    command.option("--root <dir>", "sessions root (default: $SESSIONTREE_ROOT or ~/.sessiontree)");
  if (!has("--pi"))
    command.option("--pi [dir]", "pi's agent directory (default: $PI_CODING_AGENT_DIR or ~/.pi/agent)");
  command.action(async (_options: ViewOptions, cmd: Command) => {
    const options = cmd.optsWithGlobals<ViewOptions>();
    const port = options.port;
    // Loaded on use: the viewer brings the HTTP server.
    const { createLocalSource } = await import("../../viewer/local-source.js");
    const { startViewer } = await import("../../viewer/serve.js");
    const piDir = typeof options.pi === "string" ? resolve(options.pi) : defaultPiAgentDir();
    const source = createLocalSource({ root: options.root ? resolve(options.root) : undefined, piDir });
    const viewer = await startViewer({ source, port, fallbackPort: options.port === undefined });
    process.stdout.write(`sessiontree viewer: ${viewer.url}\n`);
    for (const origin of await source.describe()) {
      process.stdout.write(`  ${origin.source}: ${origin.location}${origin.exists ? "" : " (not found)"}\n`);
    }
    process.stdout.write("Press Ctrl+C to stop.\n");
    if (options.open !== false) await openBrowser(viewer.url);
  });
}

/**
 * Best effort: a machine without a desktop still has the printed address. node:child_process is
 * loaded here, not at the top: it brings net and dgram, which every other command would pay for.
 */
async function openBrowser(url: string): Promise<void> {
  const { spawn } = await import("node:child_process");
  const command = process.platform === "darwin" ? "open" : process.platform === "win32" ? "cmd" : "xdg-open";
  const args = process.platform === "win32" ? ["/c", "start", "", url] : [url];
  try {
    const child = spawn(command, args, { stdio: "ignore", detached: true });
    child.on("error", () => undefined);
    child.unref();
  } catch {
    // The address is printed above; opening a browser is only a convenience.
  }
}
