import { lsTool, readTool } from "./coding/read-tools.js";
import type { AgentTool } from "./tools.js";

/**
 * Two read-only tools confined to `root`: `read` (a text file, first 64 KiB) and `ls` (a folder).
 * For the whole set a coding agent needs, see `codingTools`.
 */
export function readOnlyFsTools(root: string): AgentTool[] {
  return [readTool(root), lsTool(root)];
}
