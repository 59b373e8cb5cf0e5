import { z } from "zod";
import type { SessionSource } from "../source.js";

/** What every tool is given. */
export interface ToolDeps {
  source: SessionSource;
  /** The server's working directory: a relative `cwd` argument is taken from there. */
  cwd: string;
  /** The server's log (stderr). */
  log: (line: string) => void;
}

/** The `session` argument every per-session tool takes. */
export const sessionArg = z
  .string()
  .min(1)
  .describe("the session: its id, a unique prefix of the id (as list_sessions shows), or its file path");

/** The `entry` argument: ids are long, a prefix is enough. */
export const entryArg = z.string().min(1).describe("an entry id, or a unique prefix of one");

/** Hints for clients: the read tools change nothing and only read the sessions in scope. */
export const READ_ONLY = { readOnlyHint: true, openWorldHint: false } as const;
