/**
 * For the MCP tests: the real `sessiontree mcp` (bin/sessiontree.js from source) spawned by the
 * SDK's own client over stdio, and a root holding a branched session.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { encodeCwd } from "../../src/file/paths.js";
import { messageMaker } from "../support/messages.js";
import { BIN } from "./helpers.js";

export interface McpSession {
  client: Client;
  /** What the server wrote to stderr so far. */
  stderr(): string;
  /** Errors the client met reading the server's stdout (anything not the protocol). */
  protocolErrors: Error[];
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  /** A call that must succeed: its structured content. */
  ok<T = Record<string, unknown>>(
    name: string,
    args?: Record<string, unknown>,
  ): Promise<T & { text: string }>;
  close(): Promise<void>;
}

export async function startMcp(
  args: string[],
  options: { cwd: string; env: Record<string, string> },
): Promise<McpSession> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "mcp", ...args],
    cwd: options.cwd,
    env: { ...options.env, SESSIONTREE_FROM_SOURCE: "1" },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const protocolErrors: Error[] = [];
  const client = new Client({ name: "sessiontree-test", version: "1.0.0" });
  client.onerror = (error) => protocolErrors.push(error);
  await client.connect(transport);
  const call = async (name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;
  return {
    client,
    stderr: () => stderr,
    protocolErrors,
    call,
    async ok<T>(name: string, args: Record<string, unknown> = {}) {
      const result = await call(name, args);
      assert.notEqual(result.isError, true, `${name} failed: ${textOf(result)}`);
      return { ...(result.structuredContent as T), text: textOf(result) };
    },
    close: () => client.close(),
  };
}

export function textOf(result: CallToolResult): string {
  return result.content.map((part) => (part.type === "text" ? part.text : "")).join("");
}

/** The error code of a failed call (asserting that it failed). */
export function errorOf(result: CallToolResult): { code: string; message: string } {
  assert.equal(result.isError, true, `expected an error, got ${textOf(result)}`);
  return (result.structuredContent as { error: { code: string; message: string } }).error;
}

export const BRANCHED_ID = "0b5e7a1c-1111-4aaa-8bbb-000000000001";
export const OTHER_ID = "0b5e7a1c-2222-4aaa-8bbb-000000000002";

/**
 * One session of /work/project, rewound once:
 *
 *   u1 "fix the flaky login test" → a1 (label "investigation done")
 *     → u2a "try increasing the timeout" → a2a                          (abandoned)
 *     → u2b "rewrite the retry with backoff" → a2b (bash npm test) → r2b → label → name (the leaf)
 *
 * and one session of /work/other. Returns the files' paths.
 */
export function writeBranchedRoot(root: string): { branched: string; other: string } {
  const m = messageMaker(Date.parse("2026-03-01T10:00:00.000Z"));
  let clock = Date.parse("2026-03-01T10:00:00.000Z");
  const at = () => {
    clock += 1000;
    return new Date(clock).toISOString();
  };
  const entry = (type: string, id: string, parentId: string | null, fields: Record<string, unknown>) => ({
    type,
    id,
    parentId,
    timestamp: at(),
    ...fields,
  });
  const message = (id: string, parentId: string | null, body: unknown) =>
    entry("message", id, parentId, { message: body });
  const call = { type: "toolCall", id: "c1", name: "bash", arguments: { command: "npm test -- login" } };
  const branched = [
    { type: "session", version: 3, id: BRANCHED_ID, timestamp: at(), cwd: "/work/project" },
    message("u1000001", null, m.user("fix the flaky login test")),
    message("a1000001", "u1000001", m.assistant("Looking at the retry logic in login.spec.ts")),
    message("u2a00001", "a1000001", m.user("try increasing the timeout")),
    message("a2a00001", "u2a00001", m.assistant("Raised the timeout to 30 seconds")),
    message("u2b00001", "a1000001", m.user("rewrite the retry with exponential backoff")),
    message(
      "a2b00001",
      "u2b00001",
      m.assistant("", { content: [{ type: "text", text: "Running the tests." }, call] as never }),
    ),
    message("r2b00001", "a2b00001", m.toolResult("c1", "bash", "all 12 tests pass")),
    entry("label", "lab00001", "r2b00001", { targetId: "a1000001", label: "investigation done" }),
    entry("session_info", "inf00001", "lab00001", { name: "login flake" }),
  ];
  const other = [
    { type: "session", version: 3, id: OTHER_ID, timestamp: at(), cwd: "/work/other" },
    message("o1000001", null, m.user("deploy the docs site")),
    message("o2000001", "o1000001", m.assistant("Deployed.")),
  ];
  return {
    branched: writeSession(root, "/work/project", "2026-03-01T10-00-00-000Z", BRANCHED_ID, branched),
    other: writeSession(root, "/work/other", "2026-03-01T09-00-00-000Z", OTHER_ID, other),
  };
}

export function writeSession(root: string, cwd: string, stamp: string, id: string, lines: unknown[]): string {
  const folder = join(root, "sessions", encodeCwd(cwd));
  mkdirSync(folder, { recursive: true });
  const path = join(folder, `${stamp}_${id}.jsonl`);
  writeFileSync(path, lines.map((line) => `${JSON.stringify(line)}\n`).join(""));
  return path;
}
