import type { Dirent } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { Type } from "@sinclair/typebox";
import { ValidationError } from "../../core/errors.js";
import { globMatch } from "../permissions.js";
import { type AgentTool, defineTool } from "../tools.js";
import { insideRoot } from "./paths.js";

const SKIPPED = new Set([".git", "node_modules"]);
const MAX_MATCHES = 200;
const MAX_FILES = 500;
const MAX_FILE_BYTES = 2 * 1024 * 1024;

/** Every file under `dir` (folders .git and node_modules left out), stopping when `signal` aborts. */
async function* walk(dir: string, signal: AbortSignal): AsyncGenerator<string> {
  const stack = [dir];
  while (stack.length > 0) {
    if (signal.aborted) throw new Error("aborted");
    const current = stack.pop() as string;
    let entries: Dirent[];
    try {
      entries = await readdir(current, { withFileTypes: true });
    } catch {
      continue; // A folder we may not read is not an error of the search.
    }
    entries.sort((a, b) => (a.name < b.name ? 1 : -1));
    for (const entry of entries) {
      const full = join(current, entry.name);
      if (entry.isDirectory() && !SKIPPED.has(entry.name)) stack.push(full);
      else if (entry.isFile()) yield full;
    }
  }
}

/** `find`: files whose path (relative to the search folder) or name matches a glob. */
export function findTool(root: string): AgentTool {
  return defineTool({
    name: "find",
    description: "Find files by a glob on their name or relative path (e.g. *.ts, src/*/index.ts)",
    parameters: Type.Object({ pattern: Type.String(), path: Type.Optional(Type.String()) }),
    execute: async ({ pattern, path }, { signal }) => {
      const dir = insideRoot(root, path ?? ".");
      const found: string[] = [];
      for await (const file of walk(dir, signal)) {
        const rel = relative(dir, file);
        const name = rel.split("/").pop() as string;
        if (globMatch(pattern, rel) || globMatch(pattern, name)) found.push(rel);
        if (found.length >= MAX_FILES) break;
      }
      const more = found.length >= MAX_FILES ? `\n[… stopped at ${MAX_FILES} files]` : "";
      return { content: found.sort().join("\n") + more || "(no files match)" };
    },
  }) as AgentTool;
}

/** `grep`: lines matching a regular expression in the files under a folder, `file:line: text`. */
export function grepTool(root: string): AgentTool {
  return defineTool({
    name: "grep",
    description:
      "Search file contents with a regular expression; glob narrows the files (e.g. *.ts). Answers file:line: text.",
    parameters: Type.Object({
      pattern: Type.String(),
      path: Type.Optional(Type.String()),
      glob: Type.Optional(Type.String()),
      ignoreCase: Type.Optional(Type.Boolean()),
    }),
    execute: async ({ pattern, path, glob, ignoreCase }, { signal }) => {
      const regex = compile(pattern, ignoreCase === true);
      const dir = insideRoot(root, path ?? ".");
      const hits: string[] = [];
      for await (const file of walk(dir, signal)) {
        const rel = relative(dir, file);
        if (glob && !globMatch(glob, rel) && !globMatch(glob, rel.split("/").pop() as string)) continue;
        const bytes = await readFile(file).catch(() => undefined);
        if (!bytes || bytes.length > MAX_FILE_BYTES || bytes.subarray(0, 8000).includes(0)) continue;
        bytes
          .toString("utf8")
          .split("\n")
          .forEach((line, i) => {
            if (hits.length < MAX_MATCHES && regex.test(line))
              hits.push(`${rel}:${i + 1}: ${line.slice(0, 300)}`);
          });
        if (hits.length >= MAX_MATCHES) break;
      }
      const more = hits.length >= MAX_MATCHES ? `\n[… stopped at ${MAX_MATCHES} matches]` : "";
      return { content: hits.join("\n") + more || "(no matches)" };
    },
  }) as AgentTool;
}

function compile(pattern: string, ignoreCase: boolean): RegExp {
  try {
    return new RegExp(pattern, ignoreCase ? "i" : "");
  } catch (error) {
    throw new ValidationError("invalid_argument", `Not a regular expression: ${(error as Error).message}`);
  }
}
