import { refuseUnreadable } from "../../file/file-kind.js";
import type { CommandContext } from "../command-context.js";

/**
 * The file of the session a read-only command was asked for, refused when it is empty or another
 * tool's session (before the session manager opens it: opening an empty file starts a new session).
 */
export function readablePath(ctx: CommandContext, ref: string | undefined): string {
  const path = ctx.sessionPath(ref);
  refuseUnreadable(path);
  return path;
}
