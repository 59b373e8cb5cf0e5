import type { SessionEntry, SessionHeader } from "../core/entry.js";
import type { SessionIssue } from "../core/issues.js";
import type { SessionTree, SessionTreeNode } from "../core/tree.js";
import { subagentNames } from "../format/describe.js";
import { entryLine, entryLook, LOOKS, type Look } from "./browser/entry-line.js";

/**
 * What the page needs to draw a session, without any entry's body: the tree's shape in columns
 * (one array per fact, indexed by node number), a one-line text per entry, labels and the leaf.
 * At 100,000 entries this is a few megabytes of JSON where the whole session is a few hundred;
 * bodies are asked for one entry (and one page of context) at a time.
 *
 * Node numbers are positions in core's `getEntries()` (duplicates kept once, hidden leaf markers
 * left out); parents follow core's `getTree()` (a missing parent or a cut cycle makes a root).
 */
export interface SessionShape {
  key: string;
  source: string;
  header: SessionHeader;
  name: string | undefined;
  issues: SessionIssue[];
  /** Node number of the leaf, -1 for none. */
  leaf: number;
  ids: string[];
  /** Parent node number, -1 for a root. */
  parents: number[];
  /** One character per node: `LOOK_CODES[code]` is its look. */
  looks: string;
  /**
   * What each node's row says, on one line (format/describe.ts's words, the viewer's previews).
   * Null when the server left them out to send the shape quickly (a large session): the page asks
   * `/api/texts` for the rows it draws.
   */
  texts: string[] | null;
  /** The first prompt's text (the page's title when the session has no name), "" for none. */
  firstPrompt: string;
  /** Resolved labels, target id → label. */
  labels: Record<string, string>;
}

/** The session-wide facts a shape carries besides the tree's. */
export interface ShapeMeta {
  key: string;
  source: string;
  header: SessionHeader;
  leafId: string | null;
  issues: SessionIssue[];
}

/** A look as one character: "a" + its position in LOOKS. */
export function lookCode(look: Look): string {
  return String.fromCharCode(97 + LOOKS.indexOf(look));
}

export function lookAt(looks: string, v: number): Look {
  return LOOKS[looks.charCodeAt(v) - 97] ?? "other";
}

/**
 * The shape of a session core has indexed: O(n), no recursion. The server runs it once per read of
 * a session file; the single-file export's page runs it over the tree it builds from its data.
 */
export function shapeOf(
  tree: SessionTree,
  meta: ShapeMeta,
  options: { texts: boolean; subagents?: ReadonlyMap<string, string> },
): SessionShape {
  const entries = tree.getEntries();
  const subagents = options.subagents ?? subagentNames(entries);
  const n = entries.length;
  const position = new Map<string, number>();
  for (let i = 0; i < n; i++) position.set((entries[i] as SessionEntry).id, i);
  const parents = parentsOf(tree.getTree(), position, n);
  const ids = new Array<string>(n);
  const texts = options.texts ? new Array<string>(n) : null;
  const looks: string[] = new Array(n);
  let firstPrompt: string | undefined;
  for (let i = 0; i < n; i++) {
    const entry = entries[i] as SessionEntry;
    const context = { subagent: subagents.get(entry.id) };
    // A row's text costs more than its look: left out, it is made when a page of rows asks.
    const look = texts ? undefined : entryLook(entry, context);
    const line =
      look === undefined || (look === "user" && firstPrompt === undefined) ? entryLine(entry, context) : null;
    ids[i] = entry.id;
    looks[i] = lookCode(look ?? (line as { look: Look }).look);
    if (texts && line) texts[i] = line.text;
    if (firstPrompt === undefined && line?.look === "user") firstPrompt = line.text.slice(0, 80);
  }
  return {
    key: meta.key,
    source: meta.source,
    header: meta.header,
    name: tree.getSessionName(),
    issues: meta.issues,
    leaf: meta.leafId === null ? -1 : (position.get(meta.leafId) ?? -1),
    ids,
    parents,
    looks: looks.join(""),
    texts,
    firstPrompt: firstPrompt ?? "",
    labels: Object.fromEntries(tree.getLabels()),
  };
}

/** Core's forest as parent numbers, walked with an explicit stack (a 200,000-deep chain is fine). */
function parentsOf(forest: SessionTreeNode[], position: Map<string, number>, n: number): number[] {
  const parents = new Array<number>(n).fill(-1);
  const stack = forest.slice();
  while (stack.length > 0) {
    const node = stack.pop() as SessionTreeNode;
    const v = position.get(node.entry.id) as number;
    for (const child of node.children) {
      parents[position.get(child.entry.id) as number] = v;
      stack.push(child);
    }
  }
  return parents;
}
