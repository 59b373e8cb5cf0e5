import assert from "node:assert/strict";
import type { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import type { SessionManager } from "../../../src/session/session-manager.js";

/** The two managers under comparison and the id correspondence between them. */
export interface Pair {
  ours: SessionManager;
  pi: PiSessionManager;
  ids: IdMap;
}

/** The subset of both managers' read API the comparisons use (both satisfy it structurally). */
export interface ReadableManager {
  getLeafId(): string | null;
  getEntries(): unknown[];
  getBranch(fromId?: string): unknown[];
  getTree(): unknown[];
  getChildren(parentId: string): unknown[];
  getLabel(id: string): string | undefined;
  getSessionName(): string | undefined;
  buildSessionContext(): { messages: unknown[]; thinkingLevel: string; model: unknown };
}

type Json = Record<string, unknown>;

/**
 * Entry ids are random in both implementations: every entry created through both gets its pair
 * recorded here. Ids never created (a made-up `firstKeptEntryId`, `"root"`) map to themselves.
 */
export class IdMap {
  private readonly toPi = new Map<string, string>();

  add(oursId: string, piId: string): void {
    this.toPi.set(oursId, piId);
  }

  pi(oursId: string): string;
  pi(oursId: string | null): string | null;
  pi(oursId: string | null): string | null {
    return oursId === null ? null : (this.toPi.get(oursId) ?? oursId);
  }

  clear(): void {
    this.toPi.clear();
  }
}

/** The identity map, for comparing two readings of one file. */
export const SAME_IDS = new IdMap();

/** Fields that hold entry ids, by entry type. */
const ID_FIELDS: Record<string, string[]> = {
  label: ["targetId"],
  branch_summary: ["fromId"],
  compaction: ["firstKeptEntryId"],
};

/**
 * An entry as JSON would store it (undefined fields gone), ids translated, its timestamp dropped
 * (each implementation reads its own clock).
 */
export function normalizeEntry(entry: unknown, ids: IdMap): Json {
  const e = JSON.parse(JSON.stringify(entry)) as Json;
  e.id = ids.pi(e.id as string);
  e.parentId = ids.pi(e.parentId as string | null);
  for (const field of ID_FIELDS[e.type as string] ?? []) e[field] = ids.pi(e[field] as string);
  delete e.timestamp;
  return e;
}

/** Roles whose message timestamp is derived from the entry's timestamp, not given by the caller. */
const DERIVED_ROLES = new Set(["custom", "branchSummary", "compactionSummary"]);

export function normalizeContext(
  context: { messages: unknown[]; thinkingLevel: string; model: unknown },
  ids: IdMap,
): Json {
  const messages = context.messages.map((m) => {
    const message = { ...(m as Json) };
    if (DERIVED_ROLES.has(message.role as string)) delete message.timestamp;
    if (message.role === "branchSummary") message.fromId = ids.pi(message.fromId as string);
    return message;
  });
  return { messages, thinkingLevel: context.thinkingLevel, model: context.model };
}

interface TreeNodeLike {
  entry: { id: string };
  children: TreeNodeLike[];
  label?: string;
}

/** One node of a flattened tree: its id, label and ordered child ids (`null` parent: a root). */
export interface FlatNode {
  id: string;
  label?: string;
  children: string[];
}

/**
 * getTree reduced to ids, labels and child order, flattened in depth-first order. Flat, because
 * deep-comparing a nested 1,000-deep tree would overflow the comparer's stack.
 */
export function treeShape(roots: unknown[], ids: IdMap): FlatNode[] {
  const out: FlatNode[] = [
    { id: "(roots)", children: roots.map((r) => ids.pi((r as TreeNodeLike).entry.id)) },
  ];
  const stack = [...(roots as TreeNodeLike[])].reverse();
  while (stack.length > 0) {
    const node = stack.pop() as TreeNodeLike;
    const flat: FlatNode = {
      id: ids.pi(node.entry.id),
      children: node.children.map((c) => ids.pi(c.entry.id)),
    };
    if (node.label !== undefined) flat.label = node.label;
    out.push(flat);
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i] as TreeNodeLike);
  }
  return out;
}

const idOf = (e: unknown) => (e as { id: string }).id;

/**
 * Asserts that two managers present the same session. `ids` maps `a`'s ids into `b`'s. `probe`
 * lists ids of `a` whose children and labels are compared; `deep` also compares every entry's
 * content (ids translated, timestamps aside).
 */
export function assertSameSession(
  a: ReadableManager,
  b: ReadableManager,
  ids: IdMap,
  where: string,
  options: { probe?: readonly string[]; deep?: boolean } = {},
): void {
  assert.equal(ids.pi(a.getLeafId()), b.getLeafId(), `${where}: leaf`);
  assert.deepEqual(
    a
      .getBranch()
      .map(idOf)
      .map((id) => ids.pi(id)),
    b.getBranch().map(idOf),
    `${where}: branch`,
  );
  assert.deepEqual(
    normalizeContext(a.buildSessionContext(), ids),
    normalizeContext(b.buildSessionContext(), SAME_IDS),
    `${where}: context`,
  );
  assert.deepEqual(treeShape(a.getTree(), ids), treeShape(b.getTree(), SAME_IDS), `${where}: tree`);
  assert.equal(a.getSessionName(), b.getSessionName(), `${where}: session name`);
  const entriesA = a.getEntries();
  assert.deepEqual(
    entriesA.map(idOf).map((id) => ids.pi(id)),
    b.getEntries().map(idOf),
    `${where}: entry order`,
  );
  const probe = options.deep ? entriesA.map(idOf) : (options.probe ?? []);
  for (const id of probe) {
    assert.deepEqual(
      a
        .getChildren(id)
        .map(idOf)
        .map((c) => ids.pi(c)),
      b.getChildren(ids.pi(id)).map(idOf),
      `${where}: children of ${id}`,
    );
    assert.equal(a.getLabel(id), b.getLabel(ids.pi(id)), `${where}: label of ${id}`);
  }
  if (options.deep) {
    assert.deepEqual(
      entriesA.map((e) => normalizeEntry(e, ids)),
      b.getEntries().map((e) => normalizeEntry(e, SAME_IDS)),
      `${where}: entries`,
    );
  }
}

/** Pairs two managers' entries by position (both append in the same order; ids are random). */
export function pairByPosition(a: ReadableManager, b: ReadableManager): IdMap {
  const ids = new IdMap();
  const bEntries = b.getEntries();
  assert.equal(a.getEntries().length, bEntries.length, "same number of entries");
  a.getEntries().forEach((entry, i) => {
    ids.add(idOf(entry), idOf(bEntries[i]));
  });
  return ids;
}
