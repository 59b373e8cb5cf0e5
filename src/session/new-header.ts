import { resolve } from "node:path";
import { CURRENT_SESSION_VERSION, type SessionHeader } from "../core/entry.js";
import { nowIso } from "../core/ids.js";
import { newSessionId } from "../core/session-id.js";
import { defaultRoot } from "../file/paths.js";

export interface NewSessionOptions {
  id?: string;
  parentSession?: string;
}

/** The header of a new v3 session. */
export function newHeader(cwd: string, options: NewSessionOptions): SessionHeader {
  const header: SessionHeader = {
    type: "session",
    version: CURRENT_SESSION_VERSION,
    id: options.id ?? newSessionId(),
    timestamp: nowIso(),
    cwd,
  };
  // As pi writes it: an empty string too, only a missing one is left out.
  if (options.parentSession !== undefined) header.parentSession = options.parentSession;
  return header;
}

/** The sessions root: the option, else env SESSIONTREE_ROOT, else ~/.sessiontree. */
export function rootOf(options: { root?: string }): string {
  return options.root ? resolve(options.root) : defaultRoot();
}
