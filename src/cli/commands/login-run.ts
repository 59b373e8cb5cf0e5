import { SessionTreeClient } from "../../client/client.js";
import { loginFilePath, normalizeServer, removeLogin, saveLogin } from "../../sync/credentials.js";
import type { CommandContext } from "../command-context.js";
import { UsageError } from "../exit.js";
import type { LoginFlags } from "./login.js";

/** Saves the service's URL and key once the service accepted the key (unless --no-check). */
export async function runLogin(ctx: CommandContext, flags: LoginFlags): Promise<void> {
  const server = serverOf(flags.server);
  const key = flags.keyEnv === undefined ? await keyFromStdin(ctx) : keyFromEnv(ctx, flags.keyEnv);
  if (flags.check) {
    // Any authenticated read will do: a refused key is a 401 (SessionTreeApiError, exit 1).
    await new SessionTreeClient({ baseUrl: server, token: key }).listSessions({ limit: 1 });
  }
  const path = loginFilePath(ctx.io.env);
  saveLogin(path, server, key);
  if (ctx.json) ctx.printJson({ server, path });
  else ctx.print(`logged in to ${server} · key saved in ${path}`);
}

export function runLogout(ctx: CommandContext, flags: { server?: string }): void {
  const server = flags.server === undefined ? undefined : serverOf(flags.server);
  const forgot = removeLogin(loginFilePath(ctx.io.env), server);
  if (ctx.json) ctx.printJson({ server: server ?? null, forgot });
  else ctx.print(forgot ? `logged out${server ? ` of ${server}` : ""}` : "nothing to forget");
}

function serverOf(url: string): string {
  try {
    return normalizeServer(url);
  } catch {
    throw new UsageError(`--server ${url} is not an http(s) URL`);
  }
}

function keyFromEnv(ctx: CommandContext, name: string): string {
  const key = ctx.io.env[name]?.trim();
  if (!key) throw new UsageError(`The environment variable ${name} is empty or not set`);
  return key;
}

/** The key as the first line of stdin: piped (`… | sessiontree login`) or typed at a prompt. */
async function keyFromStdin(ctx: CommandContext): Promise<string> {
  if (process.stdin.isTTY) ctx.io.err("API key (st_…), then Enter: ");
  let text = "";
  for await (const chunk of process.stdin) {
    text += String(chunk);
    if (text.includes("\n")) break;
  }
  const key = text.split("\n")[0]?.trim() ?? "";
  if (!key) throw new UsageError("No key on stdin (pipe it in, or use --key-env NAME)");
  return key;
}
