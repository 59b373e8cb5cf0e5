import { readFileSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { ensurePrivateDir } from "../file/cache-dir.js";
import { writeAtomic } from "../file/write-atomic.js";

/**
 * `sessiontree login` keeps the service's URL and an API key in one file private to the user
 * (folder 0700, file 0600), in the user's config directory:
 * - `SESSIONTREE_CONFIG_DIR` when set;
 * - Linux and other Unixes: `$XDG_CONFIG_HOME/sessiontree`, default `~/.config/sessiontree`;
 * - macOS: `~/Library/Application Support/sessiontree`;
 * - Windows: `%APPDATA%\sessiontree`.
 * The file is `login.json`: `{ "default": URL, "servers": { URL: { "key": "st_…" } } }`.
 */
export function configDir(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  if (env.SESSIONTREE_CONFIG_DIR) return resolve(env.SESSIONTREE_CONFIG_DIR);
  const home = homedir();
  if (platform === "darwin") return join(home, "Library", "Application Support", "sessiontree");
  if (platform === "win32") return join(env.APPDATA || join(home, "AppData", "Roaming"), "sessiontree");
  const xdg = env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : undefined;
  return join(xdg ?? join(home, ".config"), "sessiontree");
}

export function loginFilePath(env: NodeJS.ProcessEnv = process.env): string {
  return join(configDir(env), "login.json");
}

export interface LoginFile {
  default: string | null;
  servers: Record<string, { key: string; savedAt: string }>;
}

/** A service URL as the login file and the sync state name it: no trailing slash. */
export function normalizeServer(url: string): string {
  const parsed = new URL(url);
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
    throw new TypeError(`${url} is not an http(s) URL`);
  return parsed.toString().replace(/\/+$/, "");
}

export function readLoginFile(path: string): LoginFile {
  try {
    const parsed = JSON.parse(readFileSync(path, "utf8")) as Partial<LoginFile>;
    return { default: parsed.default ?? null, servers: parsed.servers ?? {} };
  } catch {
    return { default: null, servers: {} };
  }
}

/** Saves `key` for `server` (and makes it the default), atomically, 0600 in a 0700 folder. */
export function saveLogin(path: string, server: string, key: string, now = new Date()): void {
  const file = readLoginFile(path);
  file.servers[server] = { key, savedAt: now.toISOString() };
  file.default = server;
  writeLoginFile(path, file);
}

/** Forgets `server` (every server when undefined); true when something was forgotten. */
export function removeLogin(path: string, server: string | undefined): boolean {
  const file = readLoginFile(path);
  if (server === undefined) {
    const had = Object.keys(file.servers).length > 0;
    rmSync(path, { force: true });
    return had;
  }
  if (!file.servers[server]) return false;
  delete file.servers[server];
  if (file.default === server) file.default = Object.keys(file.servers)[0] ?? null;
  writeLoginFile(path, file);
  return true;
}

function writeLoginFile(path: string, file: LoginFile): void {
  if (!ensurePrivateDir(dirname(path))) throw new Error(`Cannot create ${dirname(path)}`);
  writeAtomic(path, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
}

/** Where a sync finds its service and key: the options, the environment, then the login file. */
export interface ResolvedLogin {
  server: string;
  key: string;
  /** The key's public part (`st_<id>_…` → `<id>`), or a hash-free label for other tokens. */
  credentialId: string;
}

export function resolveLogin(
  serverOption: string | undefined,
  env: NodeJS.ProcessEnv,
  path = loginFilePath(env),
): ResolvedLogin | { missing: "server" | "key"; server?: string } {
  const file = readLoginFile(path);
  const raw = serverOption ?? env.SESSIONTREE_SERVER ?? file.default ?? undefined;
  if (!raw) return { missing: "server" };
  const server = normalizeServer(raw);
  const key = env.SESSIONTREE_API_KEY || file.servers[server]?.key;
  if (!key) return { missing: "key", server };
  return { server, key, credentialId: credentialIdOf(key) };
}

/** `st_<id>_<secret>` → `key:<id>` (the id is public); any other token (a JWT) → "token". */
export function credentialIdOf(key: string): string {
  const match = /^st_([A-Za-z0-9]+)_/.exec(key);
  return match ? `key:${match[1]}` : "token";
}
