import type { Durability } from "../../file/session-file.js";

export interface JsonlStoreOptions {
  /** The folder that holds `owners/…`; created by `init`. */
  root: string;
  /**
   * How far an append has gone when it returns ("os": survives a crash of the process; "fsync":
   * survives power loss).
   * @default "os"
   */
  durability?: Durability;
  /**
   * Session files kept open (their trees in memory) so an append does not re-read the file.
   * @default 64
   */
  openFiles?: number;
}
