import { refuseUnreadable } from "../../file/file-kind.js";
import type { CommandContext } from "../command-context.js";

/**
 * The file of the session a read-only command was asked for, refused when it is empty or another
 * tool's session (before the session manager opens it: opening an empty file starts a new session).
 */
export function readablePath(ctx: CommandContext, ref: string | undefined): string {
  return readableSession(ctx, ref).path;
}

/** `readablePath`, with the version its pi header states (null when it has none that says). */
export function readableSession(
  ctx: CommandContext,
  ref: string | undefined,
): { path: string; version: number | null } {
  const path = ctx.sessionPath(ref);
  const file = refuseUnreadable(path);
  return { path, version: file?.kind === "pi" ? (file.version ?? null) : null };
}
