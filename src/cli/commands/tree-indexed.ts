import { closeSync, fstatSync } from "node:fs";
import { ENTRY_TYPES, type SessionEntry } from "../../core/entry.js";
import { drawableFromIndex, numbersOfKind, readIndexedFacts } from "../../file/indexed-facts.js";
import { IndexedReader } from "../../file/indexed-reader.js";
import { NodeNumbers } from "../../file/node-numbers.js";
import { openExisting } from "../../file/read-file.js";
import { currentIndex } from "../../file/sidecar-index.js";
import { typeOfKind } from "../../file/sidecar-index-kind.js";
import { isSidechain } from "../../format/describe.js";
import { drawTree, layoutTree, type TreeRenderOptions, type TreeShape } from "../render/tree.js";

/** A session's tree as `tree` draws it, with what its first line says. */
export interface TreeDrawing {
  sessionId: string;
  name: string | undefined;
  /** Entries, as `getEntries()` counts them. */
  count: number;
  lines: string[];
}

/**
 * Draws a session's tree through its sidecar index (made or caught up on the way): the structure
 * from the index's columns, and of the lines only those drawn, the first of each branch (siblings
 * are ordered by time), the labels, the name and custom entries. A 100,000-entry session then
 * parses a few hundred lines, not 100,000. Null when the drawing could differ from a whole read's
 * (`drawableFromIndex`), for a Claude Code subagent's line (named from the lines around it), and
 * when a line read is not what the index says: read it whole then.
 */
export function drawThroughIndex(
  path: string,
  options: Omit<TreeRenderOptions, "leafId" | "subagents">,
): TreeDrawing | null {
  const fd = openExisting(path);
  try {
    const found = currentIndex(path, fd);
    if (found === null || !drawableFromIndex(found.index, fstatSync(fd).size)) return null;
    return draw(new IndexedReader(fd, found.index), options);
  } finally {
    closeSync(fd);
  }
}

function draw(
  reader: IndexedReader,
  options: Omit<TreeRenderOptions, "leafId" | "subagents">,
): TreeDrawing | null {
  const index = reader.index;
  const header = reader.header();
  const customs = numbersOfKind(index, ENTRY_TYPES.custom.code);
  const facts = header === null ? null : readIndexedFacts(reader, customs);
  if (header === null || facts === null) return null;
  if (customs.some((n) => isSidechain(reader.entry(n) as SessionEntry))) return null;
  const nodes = NodeNumbers.of(index);
  const shape = indexedShape(reader, nodes, facts.labels);
  if (shape === null) return null;
  const lines = layoutTree(shape, options.collapseOver);
  const drawn = lines.flatMap((line) => ("node" in line ? [nodes.entryOf(line.node)] : []));
  if (reader.entries(drawn) === null) return null;
  const leafId = index.leaf < 0 ? null : index.ids.at(index.leaf);
  const entryOf = (node: number) => reader.entry(nodes.entryOf(node)) as SessionEntry;
  return {
    sessionId: header.id,
    name: facts.name,
    count: nodes.count,
    lines: drawTree(shape, lines, entryOf, { ...options, leafId }),
  };
}

/**
 * The tree's shape from the index: children listed in file order, then, where a node has several,
 * sorted by time as core's `getTree()` sorts them (the same stable sort over the same order).
 */
function indexedShape(
  reader: IndexedReader,
  nodes: NodeNumbers,
  labels: ReadonlyMap<string, string>,
): TreeShape | null {
  const index = reader.index;
  const parents = nodes.parents(index);
  const { starts, list, roots } = childLists(parents);
  const branching: number[] = [];
  for (let node = 0; node < nodes.count; node++)
    if ((starts[node + 1] as number) - (starts[node] as number) > 1) branching.push(node);
  const siblings = (node: number) => list.subarray(starts[node] as number, starts[node + 1] as number);
  const wanted = branching.flatMap((node) => Array.from(siblings(node), (child) => nodes.entryOf(child)));
  if (reader.entries(wanted) === null) return null;
  const time = (node: number) => Date.parse((reader.entry(nodes.entryOf(node)) as SessionEntry).timestamp);
  for (const node of branching)
    siblings(node).set(Array.from(siblings(node)).sort((a, b) => time(a) - time(b)));
  const id = (node: number) => index.ids.at(nodes.entryOf(node));
  return {
    count: nodes.count,
    roots,
    leaf: index.leaf < 0 ? -1 : nodes.nodeOf(index.leaf),
    children: siblings,
    parent: (node) => parents[node] as number,
    id,
    type: (node) => typeOfKind(index.kinds[nodes.entryOf(node)] as number),
    label: (node) => (labels.size === 0 ? undefined : labels.get(id(node))),
  };
}

/** Each node's children as one list (`list[starts[n]]` up to `starts[n + 1]`), in node order. */
function childLists(parents: Int32Array): { starts: Int32Array; list: Int32Array; roots: number[] } {
  const count = parents.length;
  const starts = new Int32Array(count + 1);
  const roots: number[] = [];
  for (let node = 0; node < count; node++) {
    const parent = parents[node] as number;
    if (parent < 0) roots.push(node);
    else (starts[parent + 1] as number)++;
  }
  for (let node = 0; node < count; node++) (starts[node + 1] as number) += starts[node] as number;
  const next = starts.slice(0, count);
  const list = new Int32Array(count - roots.length);
  for (let node = 0; node < count; node++) {
    const parent = parents[node] as number;
    if (parent >= 0) list[(next[parent] as number)++] = node;
  }
  return { starts, list, roots };
}
