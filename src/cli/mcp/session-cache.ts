/**
 * The sessions the server has read, kept while their file is unchanged. Besides sparing a re-read,
 * it keeps the ids of an old (v1) file stable: such a file has no ids, the reader makes them up on
 * each read, and an agent that lists a session's branches then reads an entry must find the ids it
 * was given.
 */
import { statSync } from "node:fs";
import type { LoadedSession } from "./source.js";

/** A handful: an agent consults a few sessions at a time, and a session can be large. */
const KEPT = 8;

export class SessionCache {
  private readonly kept = new Map<string, { stamp: string; session: LoadedSession }>();

  /** The session of `path`, read by `read` unless the file is the one read last time. */
  get(path: string, read: (path: string) => LoadedSession): LoadedSession {
    const stamp = stampOf(path);
    const hit = this.kept.get(path);
    if (hit && hit.stamp === stamp) {
      // Most recently used last: the first key is the one to drop.
      this.kept.delete(path);
      this.kept.set(path, hit);
      return hit.session;
    }
    const session = read(path);
    this.kept.delete(path);
    this.kept.set(path, { stamp, session });
    if (this.kept.size > KEPT) this.kept.delete(this.kept.keys().next().value as string);
    return session;
  }
}

/** Same inode, size and modification time: the same bytes, as far as a reader can cheaply tell. */
function stampOf(path: string): string {
  const stat = statSync(path, { bigint: true });
  return `${stat.ino}:${stat.size}:${stat.mtimeNs}`;
}
