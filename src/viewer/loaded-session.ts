import type { SessionEntry } from "../core/entry.js";
import type { SessionTree } from "../core/tree.js";
import { subagentNames } from "../format/describe.js";
import { entryLine } from "./browser/entry-line.js";
import { TEXT_PAGE_NODES } from "./browser/text-pages.js";
import { type MessagePage, type SelectionAnswer, selectionInTree, treeOf } from "./context-at.js";
import { type SessionShape, shapeOf } from "./session-shape.js";
import { attachedView, type SessionView } from "./session-view.js";
import { wireShapeJson } from "./shape-wire.js";
import type { ViewerSession } from "./source.js";

/**
 * Entries whose row texts a shape inlines; past that the page asks for them as it draws (they are
 * most of a large shape's bytes, and the most work in making it).
 */
export const INLINE_TEXTS = 5000;
/** Row texts sent with a large shape, around the node the page opens at. */
const START_TEXTS = TEXT_PAGE_NODES;
/** Row texts one `/api/texts` answer holds at most. */
export const TEXT_PAGE = 4096;

/**
 * A session read once, with what the page asks of it: its shape (sent first, serialized once) and,
 * per click, an entry with a page of the context there. The server keeps a few of these; the
 * single-file export's page makes one from its inlined session. Answers come from the view the
 * source attached (a session file served through its sidecar index: indexed-session.ts), else from
 * core's tree of the session's entries.
 */
export class LoadedSession {
  private shapeText: string | undefined;
  private wireText: string | undefined;
  /** The leaf's answer last sent with the shape, by its tail: the session does not change while kept. */
  private start: { tail: number; json: string } | undefined;
  private startTexts: string | undefined;

  private constructor(
    private readonly view: SessionView,
    /** What the source said of the file when it was read (`ViewerSource.version`). */
    readonly version: string | null,
  ) {}

  static of(session: ViewerSession, version: string | null = null): LoadedSession {
    return new LoadedSession(attachedView(session) ?? new TreeView(session), version);
  }

  get key(): string {
    return this.view.key;
  }

  get size(): number {
    return this.view.size;
  }

  get shape(): SessionShape {
    return this.view.shape;
  }

  get tree(): SessionTree {
    return this.view.tree;
  }

  has(entryId: string): boolean {
    return this.view.has(entryId);
  }

  /** The shape as JSON, made once: a 100,000-entry session is sent again without stringifying it. */
  shapeJson(): string {
    this.shapeText ??= this.view.shapeJson();
    return this.shapeText;
  }

  /** Row texts of nodes `from` to `to` (excluded), at most TEXT_PAGE of them, made as asked. */
  textsOf(from: number, to: number): { from: number; texts: string[] } {
    return this.view.textsOf(from, to);
  }

  /**
   * What opening the session needs, in one answer: the shape (compact: shape-wire.ts), and as
   * `start` the leaf's entry with
   * the latest `tail` messages of its context (null without a leaf), so the page shows both after
   * one request, however busy the server is with others (a listing that reads files).
   */
  openingJson(tail: number): string {
    if (this.start?.tail !== tail) {
      const id = this.view.startId();
      this.start = { tail, json: JSON.stringify(id === undefined ? null : this.select(id, { tail })) };
    }
    this.wireText ??= this.view.wireJson();
    this.startTexts ??= JSON.stringify(this.textsAroundStart());
    return `${this.wireText.slice(0, -1)},"start":${this.start.json},"startTexts":${this.startTexts}}`;
  }

  /**
   * The row texts a large shape leaves out, of the nodes around the one the page opens at (most of
   * them before it: the rows above the leaf are the ones drawn with it), so the first frame has
   * them without another request; a row still without one asks for its page as usual. Null when
   * the shape inlines every text.
   */
  private textsAroundStart(): { from: number; texts: string[] } | null {
    const node = this.view.startNode();
    if (this.size <= INLINE_TEXTS || node < 0) return null;
    const from = Math.max(0, node - (START_TEXTS - START_TEXTS / 4));
    return this.textsOf(from, from + START_TEXTS);
  }

  select(entryId: string, page: MessagePage): SelectionAnswer {
    return this.view.select(entryId, page);
  }
}

/** A session indexed by core: every entry in memory. */
export class TreeView implements SessionView {
  readonly tree: SessionTree;
  readonly shape: SessionShape;
  private readonly subagents: ReadonlyMap<string, string>;

  constructor(session: ViewerSession) {
    this.tree = treeOf(session);
    this.subagents = subagentNames(this.tree.getEntries());
    const texts = this.tree.getEntries().length <= INLINE_TEXTS;
    this.shape = shapeOf(this.tree, session, { texts, subagents: this.subagents });
    // The source resolved labels and the name as it read the file; they win.
    this.shape.labels = session.labels;
    this.shape.name = session.name;
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

  shapeJson(): string {
    return JSON.stringify(this.shape);
  }

  wireJson(): string {
    return wireShapeJson(this.shape);
  }

  startId(): string | undefined {
    return this.shape.ids[this.startNode()];
  }

  startNode(): number {
    return this.shape.leaf >= 0 ? this.shape.leaf : this.shape.ids.length - 1;
  }

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

  select(entryId: string, page: MessagePage): SelectionAnswer {
    return selectionInTree(this.tree, entryId, page, (id) => this.subagents.get(id));
  }
}
