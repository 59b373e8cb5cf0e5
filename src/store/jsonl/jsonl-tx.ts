import { statSync } from "node:fs";
import type { SessionEntry, SessionHeader } from "../../core/entry.js";
import { copyJson } from "../../core/json-copy.js";
import { stampBeforeAppend } from "../../file/file-stamp.js";
import { encodeLines } from "../../format/jsonl/encode.js";
import {
  type BranchTail,
  type FoundSession,
  HIDDEN_ID,
  type StoredId,
  type WriteTx,
} from "../engine/driver.js";
import { detachedEntry } from "../engine/validate-batch.js";
import type { SessionSummary } from "../store.js";
import type { JsonlSession } from "./jsonl-session.js";
import { toMeta, writeMeta } from "./jsonl-store-layout.js";
import { markLeaf } from "./jsonl-store-leaf.js";

/**
 * One session file's reads and, under its lock, writes. A write collects its lines (new entries,
 * then a leaf marker when the leaf is not the last of them) for the file layer to write in one go,
 * and writes the sidecar with the new revision first: a crash between the two never makes a
 * revision go back (see `revisionOf`). Entries handed out are copies: the cached tree's objects
 * must not change under the store.
 */
export class JsonlSessionTx implements WriteTx<JsonlSession> {
  /** What the write appends, in order. */
  readonly lines: SessionEntry[] = [];
  /** Set by a purge: the driver removes the files once the lock is let go. */
  purged = false;

  /** `session`: the file caught up under the lock (or for a read); null when there is no such session. */
  constructor(private readonly session: JsonlSession | null) {}

  find(): FoundSession<JsonlSession> | null {
    return this.session && { summary: this.session.summary, ref: this.session };
  }

  header({ file }: JsonlSession): SessionHeader {
    return copyJson(file.header);
  }

  entries({ file }: JsonlSession, after: number, limit: number | null): SessionEntry[] {
    const end = limit === null ? undefined : after + limit;
    return copyJson(file.tree.getEntries().slice(after, end));
  }

  branch({ file }: JsonlSession, leafId: string): SessionEntry[] {
    return file.tree.getEntry(leafId) ? copyJson(file.tree.getBranch(leafId)) : [];
  }

  /**
   * The walk over the tree's positions costs no copy; only the entries after `knownId` are
   * cloned, which is what a reader pays for.
   */
  branchSince({ file }: JsonlSession, leafId: string, knownId: string): BranchTail {
    if (!file.tree.getEntry(leafId)) return { entries: [], reached: false };
    const { entries, slots } = file.tree.getBranchSlots(leafId);
    let from = slots.length;
    while (from > 0 && entries[slots[from - 1] as number]?.id !== knownId) from--;
    const reached = from > 0;
    const after = reached ? slots.subarray(from) : slots;
    return { entries: copyJson(Array.from(after, (slot) => entries[slot] as SessionEntry)), reached };
  }

  /** A hidden leaf marker's id is taken, but by no entry: `HIDDEN_ID`. */
  entriesByIds({ file }: JsonlSession, ids: readonly string[]): Map<string, StoredId> {
    const stored = new Map<string, StoredId>();
    for (const id of ids) {
      const entry = file.tree.getEntry(id);
      if (entry) stored.set(id, entry);
      else if (file.tree.hasId(id)) stored.set(id, HIDDEN_ID);
    }
    return stored;
  }

  hasEntry({ file }: JsonlSession, entryId: string): boolean {
    return file.tree.getEntry(entryId) !== undefined;
  }

  insertEntries({ file }: JsonlSession, entries: readonly SessionEntry[]): void {
    const written = entries.map(detachedEntry);
    for (const entry of written) file.tree.load(entry);
    this.lines.push(...written);
  }

  updateSession({ path, file }: JsonlSession, next: SessionSummary): void {
    this.lines.push(...markLeaf(file.tree, next.leafId));
    // The sidecar describes the file as it will be once these lines are written.
    const stamp = stampBeforeAppend(statSync(path), Buffer.byteLength(encodeLines(this.lines)));
    writeMeta(path, toMeta(next, file.header, stamp, file.tree.getStoredEntries().length));
  }

  purgeSession(): void {
    this.purged = true;
  }
}
