import type { AgentTool } from "../tools.js";
import { type BashToolOptions, bashTool } from "./bash-tool.js";
import { lsTool, readTool } from "./read-tools.js";
import { findTool, grepTool } from "./search-tools.js";
import { editTool, writeTool } from "./write-tools.js";

export type { BashToolOptions } from "./bash-tool.js";

/**
 * The tools of a coding agent working in `root`: `read`, `ls`, `grep`, `find`, `write`, `edit`
 * (exact replace of a unique text) and `bash`. The file tools refuse paths outside `root`. They
 * carry no permissions of their own: give the agent a `PermissionPolicy` (a chat asks before
 * `write`, `edit` and `bash` by default).
 */
export function codingTools(root: string, options: { bash?: BashToolOptions } = {}): AgentTool[] {
  return [
    readTool(root),
    lsTool(root),
    grepTool(root),
    findTool(root),
    writeTool(root),
    editTool(root),
    bashTool(root, options.bash),
  ];
}

/** The argument of each coding tool a short permission rule (`bash(git *)`) matches. */
export const PRIMARY_ARGUMENT: Readonly<Record<string, string>> = Object.freeze({
  read: "path",
  ls: "path",
  grep: "path",
  find: "path",
  write: "path",
  edit: "path",
  bash: "command",
});

/** The file tools' arguments that are paths, normalized for rules to match one form. */
export const PATH_ARGUMENTS: Readonly<Record<string, readonly string[]>> = Object.freeze({
  read: ["path"],
  ls: ["path"],
  grep: ["path"],
  find: ["path"],
  write: ["path"],
  edit: ["path"],
});
