import type { createHash as CreateHash } from "node:crypto";
import { createRequire } from "node:module";
import { CURRENT_SESSION_VERSION } from "../../core/entry.js";
import { newEntryId } from "../../core/ids.js";

type Raw = Record<string, unknown>;

/**
 * Brings raw entries of an older format to v3 one at a time, in file order, as pi's migration
 * does over the whole array: v1 → v2 gives entries ids chained in file order and turns a
 * compaction's `firstKeptEntryIndex` (an index into the parsed lines, header included) into
 * `firstKeptEntryId`; v2 → v3 renames the message role `hookMessage` to `custom`.
 *
 * Unlike pi, the ids given to v1 entries are stable: derived from the session id and the line's
 * index, so every reading of the same v1 file names its entries alike (deep links, `checkout`,
 * labels keep working until the file is written back as v3).
 */
export class StreamingMigrator {
  private readonly idsByIndex: (string | null)[] = [null];
  private readonly taken = new Set<string>();
  private previousId: string | null = null;

  constructor(
    readonly fromVersion: number,
    private readonly sessionId = "",
  ) {}

  get needed(): boolean {
    return this.fromVersion < CURRENT_SESSION_VERSION;
  }

  /** Migrates one parsed line (not the header) in place. Call for every parsed line, valid or not. */
  migrate(entry: Raw): void {
    if (this.fromVersion < 2) this.toV2(entry);
    if (this.fromVersion < 3) toV3(entry);
  }

  private toV2(entry: Raw): void {
    const stable = sha256().update(`${this.sessionId}:${this.idsByIndex.length}`).digest("hex").slice(0, 8);
    const id = this.taken.has(stable) ? newEntryId((candidate) => this.taken.has(candidate)) : stable;
    this.taken.add(id);
    entry.id = id;
    entry.parentId = this.previousId;
    this.previousId = id;
    this.idsByIndex.push(id);
    if (entry.type === "compaction" && typeof entry.firstKeptEntryIndex === "number") {
      const target = this.idsByIndex[entry.firstKeptEntryIndex];
      if (target) entry.firstKeptEntryId = target;
      delete entry.firstKeptEntryIndex;
    }
  }
}

function toV3(entry: Raw): void {
  const message = entry.message as Raw | undefined;
  if (entry.type === "message" && message && message.role === "hookMessage") message.role = "custom";
}

let createHash: typeof CreateHash | undefined;

/**
 * node:crypto loaded on first use: only a v1 file needs it, and every CLI command loads this
 * module (its start-up time is measured: bench/cli-startup.ts).
 */
function sha256() {
  createHash ??= (createRequire(import.meta.url)("node:crypto") as typeof import("node:crypto")).createHash;
  return createHash("sha256");
}
