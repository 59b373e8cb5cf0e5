import { closeSync } from "node:fs";
import { projectContext } from "../core/context.js";
import type { SessionEntry, SessionHeader } from "../core/entry.js";
import { NotFoundError } from "../core/errors.js";
import type { SessionTree } from "../core/tree.js";
import { IndexedReader } from "../file/indexed-reader.js";
import type { NodeNumbers } from "../file/node-numbers.js";
import { openExisting } from "../file/read-file.js";
import type { SessionIndex } from "../file/sidecar-index-model.js";
import { linesForContext } from "../session/context-resume.js";
import { entryLine } from "./browser/entry-line.js";
import {
  type ContextAtNode,
  type MessagePage,
  pagedSelection,
  type SelectionAnswer,
  treeOf,
} from "./context-at.js";
import { IdLookup } from "./id-lookup.js";
import { TEXT_PAGE, TreeView } from "./loaded-session.js";
import type { SessionShape } from "./session-shape.js";
import type { SessionView } from "./session-view.js";
import { wireShapeJsonOpen } from "./shape-wire.js";
import type { ViewerSession } from "./source.js";

/** What opening a session through its index found (indexed-open.ts). */
export interface IndexedFacts {
  key: string;
  source: string;
  path: string;
  header: SessionHeader;
  index: SessionIndex;
  nodes: NodeNumbers;
  /** One character per node, as the shape sends them. */
  looks: string;
  name: string | undefined;
  labels: Record<string, string>;
  firstPrompt: string;
  /** The session read whole, as the source reads it without the index (made once, when needed). */
  readWhole: () => ViewerSession;
}

/**
 * A session file served through its sidecar index: the shape from the index's columns, and each
 * row text, entry and context page from the lines it needs, read by offset when asked (every line
 * checked against the index by `IndexedReader`). Holds typed arrays, no object per entry. Answers
 * as `TreeView` does over a whole read of the same file; when a line is not what the index says
 * (the file was rewritten since), it reads the file whole and answers from that.
 */
export class IndexedSession implements SessionView {
  private lookup: IdLookup | undefined;
  private whole: TreeView | undefined;
  private wholeSession: ViewerSession | undefined;
  private parsedShape: SessionShape | undefined;

  constructor(private readonly facts: IndexedFacts) {}

  get key(): string {
    return this.facts.key;
  }

  get size(): number {
    return this.facts.nodes.count;
  }

  /** The session read whole (once): what `/api/session`, stats and diff need. */
  session(): ViewerSession {
    this.wholeSession ??= this.facts.readWhole();
    return this.wholeSession;
  }

  get tree(): SessionTree {
    return treeOf(this.session());
  }

  get shape(): SessionShape {
    if (this.whole) return this.whole.shape;
    this.parsedShape ??= JSON.parse(this.shapeJson()) as SessionShape;
    return this.parsedShape;
  }

  has(entryId: string): boolean {
    if (this.whole) return this.whole.has(entryId);
    return this.entryNumber(entryId) >= 0;
  }

  shapeJson(): string {
    if (this.whole) return this.whole.shapeJson();
    const { key, source, header, name, index, nodes, looks, firstPrompt, labels } = this.facts;
    const leaf = index.leaf < 0 ? -1 : nodes.nodeOf(index.leaf);
    // Key for key as `JSON.stringify(shape)` writes a tree view's shape (an undefined name left out).
    const head = JSON.stringify({ key, source, header, name, issues: [], leaf });
    const ids = JSON.stringify(nodes.ids(index));
    const parents = `[${nodes.parents(index).join(",")}]`;
    const tail = `"texts":null,"firstPrompt":${JSON.stringify(firstPrompt)},"labels":${JSON.stringify(labels)}}`;
    return `${head.slice(0, -1)},"ids":${ids},"parents":${parents},"looks":${JSON.stringify(looks)},${tail}`;
  }

  wireJson(): string {
    if (this.whole) return this.whole.wireJson();
    const { key, source, header, name, index, nodes, looks, firstPrompt, labels } = this.facts;
    const leaf = index.leaf < 0 ? -1 : nodes.nodeOf(index.leaf);
    const ids = nodes.idTable(index);
    const head = { key, source, header, name, issues: [], leaf };
    const rest = { looks, texts: null, firstPrompt, labels };
    return `${wireShapeJsonOpen(head, ids.text, ids.ends, nodes.parents(index), rest)}}`;
  }

  startId(): string | undefined {
    if (this.whole) return this.whole.startId();
    const { index, nodes } = this.facts;
    if (nodes.count === 0) return undefined;
    return index.ids.at(index.leaf >= 0 ? index.leaf : nodes.entryOf(nodes.count - 1));
  }

  startNode(): number {
    if (this.whole) return this.whole.startNode();
    const { index, nodes } = this.facts;
    return index.leaf >= 0 ? nodes.nodeOf(index.leaf) : nodes.count - 1;
  }

  textsOf(from: number, to: number): { from: number; texts: string[] } {
    if (this.whole) return this.whole.textsOf(from, to);
    const count = this.size;
    const start = Math.max(0, Math.min(from, count));
    const end = Math.max(start, Math.min(to, start + TEXT_PAGE, count));
    const numbers: number[] = [];
    for (let node = start; node < end; node++) numbers.push(this.facts.nodes.entryOf(node));
    const entries = this.read((reader) => reader.entries(numbers));
    if (entries === null) return this.fallback().textsOf(from, to);
    return { from: start, texts: entries.map((entry) => entryLine(entry, {}).text) };
  }

  select(entryId: string, page: MessagePage): SelectionAnswer {
    if (this.whole) return this.whole.select(entryId, page);
    const n = this.entryNumber(entryId);
    if (n < 0) {
      throw new NotFoundError("entry_not_found", `Entry ${entryId} not found`, { details: { id: entryId } });
    }
    const path = this.pathTo(n);
    const entries = this.read((reader) => {
      const wanted = linesForContext(this.facts.index, path, reader);
      return wanted === null ? null : reader.entries(wanted);
    });
    if (entries === null) return this.fallback().select(entryId, page);
    const context: ContextAtNode = { entryId, pathLength: path.length, ...projectContext(entries) };
    return pagedSelection(context, page, entries[entries.length - 1] as SessionEntry, undefined);
  }

  /** The entry number of a node's id; -1 for an id the shape does not hold (a hidden leaf marker). */
  private entryNumber(entryId: string): number {
    // The leaf's (the first answer sent) is known without the lookup table, made at a later click.
    const { leaf, ids } = this.facts.index;
    if (leaf >= 0 && ids.at(leaf) === entryId) return leaf;
    this.lookup ??= new IdLookup(this.facts.index.ids);
    const n = this.lookup.find(entryId);
    return n >= 0 && this.facts.nodes.isShown(n) ? n : -1;
  }

  /** Entry numbers root → `n` (the index's parents come before their children: no cycle). */
  private pathTo(n: number): Int32Array {
    const parents = this.facts.index.parents;
    let depth = 0;
    for (let at = n; at >= 0; at = parents[at] as number) depth++;
    const path = new Int32Array(depth);
    for (let i = depth - 1, at = n; i >= 0; i--, at = parents[at] as number) path[i] = at;
    return path;
  }

  /** Runs `use` over the file's lines; null when a line is not what the index says. */
  private read<T>(use: (reader: IndexedReader) => T | null): T | null {
    const fd = openExisting(this.facts.path);
    try {
      return use(new IndexedReader(fd, this.facts.index));
    } finally {
      closeSync(fd);
    }
  }

  private fallback(): TreeView {
    this.whole ??= new TreeView(this.session());
    return this.whole;
  }
}
