import { v7 as uuidv7 } from "uuid";

/**
 * A new session id: UUID v7, so ids sort by creation time and cannot be guessed. A module of its
 * own: the uuid package is twenty modules, and reading sessions (every `ls`) needs none of them.
 */
export function newSessionId(): string {
  return uuidv7();
}
