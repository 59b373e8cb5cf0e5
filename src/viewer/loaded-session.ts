import type { SessionEntry } from "../core/entry.js";
import type { SessionTree } from "../core/tree.js";
import { subagentNames } from "../format/describe.js";
import { entryLine } from "./browser/entry-line.js";
import { type MessagePage, type SelectionAnswer, selectionInTree, treeOf } from "./context-at.js";
import { type SessionShape, shapeOf } from "./session-shape.js";
import type { ViewerSession } from "./source.js";

/**
 * Entries whose row texts a shape inlines; past that the page asks for them as it draws (they are
 * most of a large shape's bytes, and the most work in making it).
 */
export const INLINE_TEXTS = 5000;
/** Row texts one `/api/texts` answer holds at most. */
export const TEXT_PAGE = 4096;

/**
 * A session read once and indexed by core, with what the page asks of it: its shape (sent first,
 * serialized once) and, per click, an entry with a page of the context there. The server keeps a
 * few of these; the single-file export's page makes one from its inlined session.
 */
export class LoadedSession {
  private shapeText: string | undefined;

  private constructor(
    readonly tree: SessionTree,
    readonly shape: SessionShape,
    private readonly subagents: ReadonlyMap<string, string>,
    /** What the source said of the file when it was read (`ViewerSource.version`). */
    readonly version: string | null,
  ) {}

  static of(session: ViewerSession, version: string | null = null): LoadedSession {
    const tree = treeOf(session);
    const subagents = subagentNames(tree.getEntries());
    const texts = tree.getEntries().length <= INLINE_TEXTS;
    const shape = shapeOf(tree, session, { texts, subagents });
    // The source resolved labels and the name as it read the file; they win.
    shape.labels = session.labels;
    shape.name = session.name;
    return new LoadedSession(tree, shape, subagents, version);
  }

  get key(): string {
    return this.shape.key;
  }

  get size(): number {
    return this.shape.ids.length;
  }

  has(entryId: string): boolean {
    return this.tree.getEntry(entryId) !== undefined;
  }

  /** The shape as JSON, made once: a 100,000-entry session is sent again without stringifying it. */
  shapeJson(): string {
    this.shapeText ??= JSON.stringify(this.shape);
    return this.shapeText;
  }

  /** Row texts of nodes `from` to `to` (excluded), at most TEXT_PAGE of them, made as asked. */
  textsOf(from: number, to: number): { from: number; texts: string[] } {
    const entries = this.tree.getEntries();
    const start = Math.max(0, Math.min(from, entries.length));
    const end = Math.max(start, Math.min(to, start + TEXT_PAGE, entries.length));
    const texts: string[] = [];
    for (let i = start; i < end; i++) {
      const inline = this.shape.texts?.[i];
      const entry = entries[i] as SessionEntry;
      texts.push(inline ?? entryLine(entry, { subagent: this.subagents.get(entry.id) }).text);
    }
    return { from: start, texts };
  }

  /**
   * What opening the session needs, in one answer: the shape, and as `start` the leaf's entry with
   * the latest `tail` messages of its context (null without a leaf), so the page shows both after
   * one request, however busy the server is with others (a listing that reads files).
   */
  openingJson(tail: number): string {
    const shape = this.shapeJson();
    const leaf = this.shape.leaf >= 0 ? this.shape.leaf : this.shape.ids.length - 1;
    const id = this.shape.ids[leaf];
    const start = id === undefined ? null : this.select(id, { tail });
    return `${shape.slice(0, -1)},"start":${JSON.stringify(start)}}`;
  }

  select(entryId: string, page: MessagePage): SelectionAnswer {
    return selectionInTree(this.tree, entryId, page, (id) => this.subagents.get(id));
  }
}
