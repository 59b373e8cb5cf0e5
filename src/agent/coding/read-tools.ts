import { readdir, readFile, stat } from "node:fs/promises";
import { resolve } from "node:path";
import { Type } from "@sinclair/typebox";
import { type AgentTool, defineTool } from "../tools.js";
import { insideRoot } from "./paths.js";

const MAX_BYTES = 64 * 1024;

/** `read`: a text file inside `root`, from an optional line, at most 64 KiB. */
export function readTool(root: string): AgentTool {
  return defineTool({
    name: "read",
    description:
      "Read a text file (path relative to the working directory). offset: first line (1-based), limit: lines.",
    parameters: Type.Object({
      path: Type.String(),
      offset: Type.Optional(Type.Integer({ minimum: 1 })),
      limit: Type.Optional(Type.Integer({ minimum: 1 })),
    }),
    execute: async ({ path, offset, limit }) => {
      const whole = (await readFile(insideRoot(root, path))).toString("utf8");
      if (!whole) return { content: "(empty file)" };
      const lines = whole.split("\n");
      const from = (offset ?? 1) - 1;
      const shown = lines.slice(from, limit === undefined ? undefined : from + limit).join("\n");
      if (Buffer.byteLength(shown) <= MAX_BYTES) return { content: shown };
      const cut = Buffer.from(shown).subarray(0, MAX_BYTES).toString("utf8");
      return { content: `${cut}\n[… cut at 64 KiB: read on with offset/limit]` };
    },
  }) as AgentTool;
}

/** `ls`: a folder inside `root`, folders marked with a trailing `/`. */
export function lsTool(root: string): AgentTool {
  return defineTool({
    name: "ls",
    description: "List a folder (path relative to the working directory)",
    parameters: Type.Object({ path: Type.Optional(Type.String()) }),
    execute: async ({ path }) => {
      const dir = insideRoot(root, path ?? ".");
      const names = (await readdir(dir)).sort();
      const lines = await Promise.all(
        names.map(async (name) => ((await stat(resolve(dir, name))).isDirectory() ? `${name}/` : name)),
      );
      return { content: lines.join("\n") || "(empty folder)" };
    },
  }) as AgentTool;
}
