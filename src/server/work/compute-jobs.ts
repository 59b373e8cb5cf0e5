import { type ModelRef, projectContext } from "../../core/context.js";
import type { SessionEntry } from "../../core/entry.js";
import { NotFoundError } from "../../core/errors.js";
import { SessionTree } from "../../core/tree.js";
import { RootStatsBuilder, sessionStats } from "../../format/stats.js";
import type { ComputeResult, ComputeTask, SessionHead } from "./compute-protocol.js";
import { flattenTreeSliced } from "./flat-tree.js";
import { JsonChunks } from "./json-chunks.js";
import { TimeSlicer } from "./time-slicer.js";

/**
 * The work of one whole-session answer, fed a session's entries page by page and its head (leaf,
 * cwd, …) after them: what a compute worker runs (work/compute-worker.ts). The answers are built
 * by the same code, in the same order, as when they were built on the event loop.
 */
export interface ComputeJob {
  add(entries: readonly SessionEntry[]): void;
  endSession(head: SessionHead): void;
  /** Forgets the entries added since the last head (a session that went away mid-read). */
  discardSession(): void;
  finish(): Promise<ComputeResult>;
}

export function openJob(task: ComputeTask): ComputeJob {
  switch (task.kind) {
    case "rootStats":
      return new RootStatsJob(task);
    case "stats":
      return new SessionJob((tree, head) => Promise.resolve({ value: sessionStatsBody(tree, head, task) }));
    default:
      return new SessionJob(async (tree, head) => ({ bytes: await viewBytes(task, tree, head) }));
  }
}

/** One session's entries into a tree (its leaf the store's), then one answer over it. */
class SessionJob implements ComputeJob {
  private tree = new SessionTree();
  private head: SessionHead | undefined;

  constructor(private readonly answer: (tree: SessionTree, head: SessionHead) => Promise<ComputeResult>) {}

  add(entries: readonly SessionEntry[]): void {
    for (const entry of entries) this.tree.load(entry);
  }

  endSession(head: SessionHead): void {
    // Loading leaves the tree at the last entry; the session's leaf is the store's.
    this.tree.restoreLeaf(head.leafId);
    this.head = head;
  }

  discardSession(): void {
    this.tree = new SessionTree();
  }

  finish(): Promise<ComputeResult> {
    if (!this.head) throw new Error("finish before the session's head");
    return this.answer(this.tree, this.head);
  }
}

/** Sessions folded in one at a time (memory holds the rows, not the sessions). */
class RootStatsJob implements ComputeJob {
  private readonly builder: RootStatsBuilder;
  private tree = new SessionTree();

  constructor(task: Extract<ComputeTask, { kind: "rootStats" }>) {
    this.builder = new RootStatsBuilder({ by: task.by, since: task.since, idleGapMs: task.idleGapMs });
  }

  add(entries: readonly SessionEntry[]): void {
    for (const entry of entries) this.tree.load(entry);
  }

  endSession(head: SessionHead): void {
    const tree = this.tree;
    tree.restoreLeaf(head.leafId);
    this.tree = new SessionTree();
    const { sessionId, cwd, imported } = head;
    this.builder.add({
      tree,
      sessionId,
      path: sessionId,
      cwd,
      name: tree.getSessionName() ?? null,
      imported,
    });
  }

  discardSession(): void {
    this.tree = new SessionTree();
  }

  async finish(): Promise<ComputeResult> {
    const stats = this.builder.build();
    // A group by session names its file in the CLI; here the key is the session's id already.
    return { value: { ...stats, groups: stats.groups.map(({ path: _path, ...group }) => group) } };
  }
}

/** GET …/stats: as `sessiontree stats <session> --json` answers (less its file path). */
function sessionStatsBody(
  tree: SessionTree,
  head: SessionHead,
  task: Extract<ComputeTask, { kind: "stats" }>,
): unknown {
  const { since, idleGapMs } = task;
  const stats = sessionStats(tree, { imported: head.imported, idleGapMs, since });
  return {
    sessionId: head.sessionId,
    cwd: head.cwd,
    name: tree.getSessionName() ?? null,
    imported: head.imported,
    leafId: head.leafId,
    since: since === undefined ? null : new Date(since).toISOString(),
    ...stats,
  };
}

type ViewTask = Extract<ComputeTask, { kind: "tree" | "labels" | "branch" | "context" }>;

/** The JSON of a view, as UTF-8 bytes; past `maxBytes` a 413 (json-chunks.ts). */
async function viewBytes(task: ViewTask, tree: SessionTree, head: SessionHead): Promise<Uint8Array> {
  const slicer = new TimeSlicer();
  const out = new JsonChunks(slicer, task.maxBytes);
  switch (task.kind) {
    case "tree": {
      const { roots, nodes } = await flattenTreeSliced(tree, slicer);
      await out.raw(`{"leafId":${JSON.stringify(head.leafId)},"roots":${JSON.stringify(roots)},"nodes":[`);
      await out.array(nodes);
      await out.raw("]}");
      break;
    }
    case "labels":
      await out.raw(JSON.stringify({ labels: Object.fromEntries(tree.getLabels()) }));
      break;
    case "branch": {
      const { at, path } = pathAt(tree, head, task.leafId, task.sessionId);
      await out.raw(`{"leafId":${JSON.stringify(at)},"entries":[`);
      await out.array(path);
      await out.raw("]}");
      break;
    }
    case "context": {
      const { at, path } = pathAt(tree, head, task.leafId, task.sessionId);
      const { messages, thinkingLevel, model, extensionState, messageEntryIds, warnings } =
        projectContext(path);
      await out.raw(`{"leafId":${JSON.stringify(at)},"messages":[`);
      await out.array(messages);
      // The other fields as JSON.stringify writes them (an undefined one is left out).
      const rest = JSON.stringify({
        thinkingLevel,
        model: wireModel(model),
        extensionState,
        messageEntryIds,
        warnings,
      });
      await out.raw(rest === "{}" ? "]}" : `],${rest.slice(1)}`);
      break;
    }
  }
  return new TextEncoder().encode(out.text());
}

/**
 * The context's model as the API documents it: both names, or null. pi takes them from the last
 * assistant message unchecked (the core keeps that, for parity); a message written without them
 * (another tool's file, a bare append) has no model to name.
 */
function wireModel(model: ModelRef | null): ModelRef | null {
  return model && typeof model.provider === "string" && typeof model.modelId === "string" ? model : null;
}

/** The branch a read names, as the store's readBranch finds it (an unknown leaf is entry_not_found). */
function pathAt(
  tree: SessionTree,
  head: SessionHead,
  leafId: string | undefined,
  sessionId: string,
): { at: string | null; path: SessionEntry[] } {
  const at = leafId ?? head.leafId;
  if (at === null) return { at, path: [] };
  if (tree.getEntry(at) === undefined) {
    throw new NotFoundError("entry_not_found", `Entry ${at} not found in session ${sessionId}`, {
      details: { sessionId, entryId: at },
    });
  }
  return { at, path: tree.getBranch(at) };
}
