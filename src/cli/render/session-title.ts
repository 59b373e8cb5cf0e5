import type { Colors } from "../io.js";
import { terminalSafe } from "../terminal-text.js";

/** The first line of a command about one session: its name (else its id) in bold, then `detail`. */
export function sessionTitle(c: Colors, name: string | null | undefined, id: string, detail: string): string {
  return `${c.bold(terminalSafe(name ?? id))} ${c.dim(terminalSafe(detail))}`;
}
