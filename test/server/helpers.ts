import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import {
  createApiKey,
  createServer,
  type ServerOptions,
  type SessionTreeServer,
} from "../../src/server/index.js";
import { messageMaker } from "../support/messages.js";

export type Backend = "sqlite" | "postgres";
export const BACKENDS: Backend[] = ["sqlite", "postgres"];

/** The test cluster's URL; a missing one fails the test (a PostgreSQL test never skips). */
export function pgBaseUrl(): string {
  const url = process.env.SESSIONTREE_TEST_PG_URL;
  if (!url)
    throw new Error("SESSIONTREE_TEST_PG_URL is not set: run through `npm test` or start scripts/pg.mjs");
  return url;
}

/** A new, empty database on the test cluster, dropped by `drop()`. */
export async function freshPgDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const base = pgBaseUrl();
  const name = `st_server_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: base });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

export interface CallResult {
  status: number;
  headers: Headers;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: test responses are inspected field by field
  json: any;
}

export interface CallOptions {
  key?: string | null;
  body?: unknown;
  /** Sent as is (no JSON encoding, no content type unless given in headers). */
  raw?: string;
  headers?: Record<string, string>;
}

export interface TestServer {
  server: SessionTreeServer;
  url: string;
  backend: Backend;
  /** A new API key for `user`. */
  key(user: string): Promise<string>;
  call(method: string, path: string, options?: CallOptions): Promise<CallResult>;
  close(): Promise<void>;
}

/** The real server on a loopback port, on SQLite in a temp folder or on a fresh PostgreSQL database. */
export async function startTestServer(backend: Backend, options: ServerOptions = {}): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), "st-server-"));
  const pgdb = backend === "postgres" ? await freshPgDatabase() : undefined;
  const server = await createServer({
    port: 0,
    rateLimit: false,
    ...options,
    ...(pgdb ? { database: pgdb.url } : { data: dir }),
  });
  const { url } = await server.listen();
  return {
    server,
    url,
    backend,
    key: async (user) => (await createApiKey(server.services.db, user, "test")).key,
    call: (method, path, callOptions) => call(url, method, path, callOptions),
    async close() {
      await server.close();
      await pgdb?.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function call(
  url: string,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<CallResult> {
  const headers: Record<string, string> = {};
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  let body: string | undefined;
  if (options.raw !== undefined) body = options.raw;
  else if (options.body !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(options.body);
  }
  const response = await fetch(url + path, { method, headers: { ...headers, ...options.headers }, body });
  const text = await response.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

const messages = messageMaker();

/** A user message entry draft (the message's timestamps strictly increase within a test file). */
export function userMessage(text: string): { type: string; [field: string]: unknown } {
  return { type: "message", message: messages.user(text) };
}

/** Runs an in-process CLI function with console output captured; throws on a non-zero exit code. */
export async function quietly(work: () => Promise<void>): Promise<string> {
  const printed: string[] = [];
  const log = console.log;
  const exitCode = process.exitCode;
  console.log = (...parts: unknown[]) => printed.push(parts.join(" "));
  process.exitCode = undefined;
  try {
    await work();
    if (process.exitCode) throw new Error(`exit code ${process.exitCode}`);
  } finally {
    console.log = log;
    process.exitCode = exitCode;
  }
  return printed.join("\n");
}
