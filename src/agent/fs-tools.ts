import { readdir, readFile, stat } from "node:fs/promises";
import { isAbsolute, relative, resolve } from "node:path";
import { Type } from "@sinclair/typebox";
import { ValidationError } from "../core/errors.js";
import { type AgentTool, defineTool } from "./tools.js";

const MAX_BYTES = 64 * 1024;

/**
 * Two read-only tools confined to `root`: `read` (a text file, first 64 KiB) and `ls` (a folder).
 * Enough for a chat to look at a project; anything that writes belongs to the application.
 */
export function readOnlyFsTools(root: string): AgentTool[] {
  const inside = (path: string) => {
    const full = resolve(root, path);
    const rel = relative(root, full);
    if (rel.startsWith("..") || isAbsolute(rel)) {
      throw new ValidationError("invalid_argument", `${path} is outside ${root}`, { details: { path } });
    }
    return full;
  };
  const read = defineTool({
    name: "read",
    description: "Read a text file (path relative to the working directory)",
    parameters: Type.Object({ path: Type.String() }),
    execute: async ({ path }) => {
      const text = (await readFile(inside(path))).subarray(0, MAX_BYTES).toString("utf8");
      return { content: text || "(empty file)" };
    },
  });
  const ls = defineTool({
    name: "ls",
    description: "List a folder (path relative to the working directory)",
    parameters: Type.Object({ path: Type.Optional(Type.String()) }),
    execute: async ({ path }) => {
      const dir = inside(path ?? ".");
      const names = (await readdir(dir)).sort();
      const lines = await Promise.all(
        names.map(async (name) => ((await stat(resolve(dir, name))).isDirectory() ? `${name}/` : name)),
      );
      return { content: lines.join("\n") || "(empty folder)" };
    },
  });
  return [read, ls] as AgentTool[];
}
