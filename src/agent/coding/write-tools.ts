import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { Type } from "@sinclair/typebox";
import { ValidationError } from "../../core/errors.js";
import { type AgentTool, defineTool } from "../tools.js";
import { insideRoot } from "./paths.js";

/** `write`: creates or replaces a file inside `root` (its folders made as needed). */
export function writeTool(root: string): AgentTool {
  return defineTool({
    name: "write",
    description: "Create or overwrite a file with the given content (path relative to the working directory)",
    parameters: Type.Object({ path: Type.String(), content: Type.String() }),
    execute: async ({ path, content }) => {
      const full = insideRoot(root, path);
      await mkdir(dirname(full), { recursive: true });
      await writeFile(full, content);
      return { content: `Wrote ${Buffer.byteLength(content)} bytes to ${path}`, details: { path } };
    },
  }) as AgentTool;
}

/**
 * `edit`: replaces one exact occurrence of `oldText`. A text found nowhere or more than once is
 * refused, never guessed: the model gives more context and tries again.
 */
export function editTool(root: string): AgentTool {
  return defineTool({
    name: "edit",
    description:
      "Replace an exact text in a file. oldText must occur exactly once: include enough surrounding lines to make it unique.",
    parameters: Type.Object({
      path: Type.String(),
      oldText: Type.String({ minLength: 1 }),
      newText: Type.String(),
    }),
    execute: async ({ path, oldText, newText }) => {
      const full = insideRoot(root, path);
      const text = (await readFile(full)).toString("utf8");
      const count = occurrences(text, oldText);
      if (count !== 1) {
        const why = count === 0 ? "is not in" : `occurs ${count} times in`;
        throw new ValidationError("invalid_argument", `oldText ${why} ${path}: nothing was changed`, {
          details: { path, occurrences: count },
        });
      }
      const at = text.indexOf(oldText);
      await writeFile(full, text.slice(0, at) + newText + text.slice(at + oldText.length));
      const line = text.slice(0, at).split("\n").length;
      return { content: `Edited ${path} at line ${line}`, details: { path, line } };
    },
  }) as AgentTool;
}

function occurrences(text: string, part: string): number {
  let count = 0;
  for (let at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) count++;
  return count;
}
