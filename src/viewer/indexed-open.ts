import { closeSync, fstatSync } from "node:fs";
import { drawableFromIndex, readIndexedFacts } from "../file/indexed-facts.js";
import { IndexedReader } from "../file/indexed-reader.js";
import { NodeNumbers } from "../file/node-numbers.js";
import { openExisting } from "../file/read-file.js";
import { entryLine, LOOKS } from "./browser/entry-line.js";
import { type IndexedLooks, indexWithLooks } from "./indexed-scan.js";
import { IndexedSession } from "./indexed-session.js";
import { NEEDS_WHOLE_READ } from "./line-look.js";
import { INLINE_TEXTS } from "./loaded-session.js";
import { attachView } from "./session-view.js";
import type { ViewerSession } from "./source.js";

export interface IndexedOpen {
  key: string;
  source: string;
  path: string;
  /** The session read whole, as without the index: asked for only when something needs every entry. */
  readWhole: () => ViewerSession;
}

/**
 * Opens a session file through its sidecar index (made, caught up or loaded: indexed-scan.ts),
 * reading of its entries only the session name, the labels and the first prompt: the viewer's
 * `LoadedSession` then answers from an `IndexedSession`. The `ViewerSession` returned reads the
 * file whole the first time one of its entries, labels or issues is asked for (`/api/session`).
 *
 * Null when the answers could differ from a whole read's: a file the index does not cover, a
 * file with anything a whole read reports (an issue the indexer met, a torn tail, a duplicate or
 * blank line, a parent that comes later or is missing), a Claude Code subagent's line (named from
 * the lines around it), or a session small enough that the shape inlines every row's text.
 */
export function openThroughIndex(open: IndexedOpen): ViewerSession | null {
  const fd = openExisting(open.path);
  try {
    const found = indexWithLooks(open.path, fd, afterThisAnswer);
    if (found === null || !servable(found, fstatSync(fd).size)) return null;
    const { index } = found;
    const nodes = NodeNumbers.of(index);
    if (nodes.count <= INLINE_TEXTS) return null;
    const reader = new IndexedReader(fd, index);
    const header = reader.header();
    const read = header === null ? null : readFacts(reader, nodes, found.looks);
    if (header === null || read === null) return null;
    const view = new IndexedSession({
      ...open,
      header,
      index,
      nodes,
      looks: nodes.looks(found.looks),
      ...read,
    });
    const session = lazySession(open.key, open.source, () => view.session());
    attachView(session, view);
    return session;
  } finally {
    closeSync(fd);
  }
}

/**
 * Runs `work` once the request that opened the session is answered: writing a new index and its
 * looks (~40 ms at 100k entries) is not part of the first paint. Nothing depends on the files but
 * the next open, which indexes again if they are not there yet; a failure to write is no error.
 */
function afterThisAnswer(work: () => void): void {
  setImmediate(() => {
    try {
      work();
    } catch {
      // A cache that could not be written is made again by the next open.
    }
  });
}

/** Whether the index answers as a whole read would, and no line needs the lines around it to be drawn. */
function servable({ index, looks }: IndexedLooks, size: number): boolean {
  return drawableFromIndex(index, size) && !looks.includes(NEEDS_WHOLE_READ);
}

const USER = LOOKS.indexOf("user");

/** The name (latest `session_info`), labels (in order, last wins) and first prompt; null when a line does not hold. */
function readFacts(
  reader: IndexedReader,
  nodes: NodeNumbers,
  looks: Uint8Array,
): { name: string | undefined; labels: Record<string, string>; firstPrompt: string } | null {
  let firstUser = -1;
  for (let node = 0; node < nodes.count && firstUser < 0; node++)
    if (looks[nodes.entryOf(node)] === USER) firstUser = nodes.entryOf(node);
  const facts = readIndexedFacts(reader, firstUser >= 0 ? [firstUser] : []);
  if (facts === null) return null;
  const first = firstUser < 0 ? null : reader.entry(firstUser);
  return {
    name: facts.name,
    labels: Object.fromEntries(facts.labels),
    firstPrompt: first === null ? "" : entryLine(first, {}).text.slice(0, 80),
  };
}

/**
 * A `ViewerSession` whose fields past its key and source come from a whole read made when one is
 * first read: the viewer's routes never read them for a session served through its index; a
 * serialization (`/api/session`) does, and gets the whole read's, key for key.
 */
function lazySession(key: string, source: string, whole: () => ViewerSession): ViewerSession {
  const session = { key, source } as ViewerSession;
  for (const field of ["header", "entries", "leafId", "labels", "name", "issues"] as const) {
    Object.defineProperty(session, field, { enumerable: true, get: () => whole()[field] });
  }
  return session;
}
