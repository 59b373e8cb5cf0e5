/**
 * Where the live page's data comes from, behind one interface so the page is one codebase: the
 * local viewer's `/api/*` routes (this file), or the session service's `/v1` API as the signed-in
 * user (service-data.ts). The single-file export answers from its inlined session (main.ts).
 */
import type { MessagePage, SelectionAnswer } from "../context-at.js";
import type { BranchDiffAnswer, SessionStatsAnswer } from "../session-insights.js";
import { type PrefetchedAnswer, SHAPE_PREFETCH_GLOBAL, type ShapePrefetch } from "../shape-prefetch.js";
import { type ShapeWire, shapeFromWire } from "../shape-wire.js";
import type { ViewerOrigin, ViewerSearchHit, ViewerSessionSummary } from "../source.js";
import { answerBody, api } from "./dom.js";
import type { TextFetcher } from "./text-pages.js";
import type { Opening } from "./viewer.js";

export interface ViewerData {
  /** Where the sessions come from, for the list's groups and the empty state. */
  origins(): Promise<ViewerOrigin[]>;
  /** Every session, newest first. */
  sessions(): Promise<ViewerSessionSummary[]>;
  /** A session's shape (its tree without bodies), read again if it changed. */
  shape(key: string): Promise<Opening>;
  /** An entry and a page of the context there. */
  answer(key: string, entryId: string, page: MessagePage): Promise<SelectionAnswer>;
  /** Row texts of a shape that left them out. */
  texts(key: string): TextFetcher;
  /** Full-text search over every session, best first. */
  search(query: string): Promise<ViewerSearchHit[]>;
  /** The session's stats (`sessiontree stats`), computed where its entries' bodies are. */
  stats(key: string): Promise<SessionStatsAnswer>;
  /** Where the branches to entries `a` and `b` part and what each has after (`sessiontree diff`). */
  diff(key: string, a: string, b: string): Promise<BranchDiffAnswer>;
  /** Writes to a session, where the data can take them (the service); null: read only. */
  actions: SessionActions | null;
  /** What the empty state suggests when there is no session at all. */
  emptyHints: string[];
}

/**
 * What the page can change in a session. Each write names the revision the page showed, and a
 * session that moved since is refused (core's `ConflictError`), never overwritten.
 */
export interface SessionActions {
  /** Moves the leaf to the entry. */
  checkout(key: string, entryId: string): Promise<void>;
  /** Sets the entry's label; an empty one clears it. */
  label(key: string, entryId: string, label: string): Promise<void>;
  /** Copies the path root → entry into a new session; resolves with the new session's key. */
  fork(key: string, entryId: string): Promise<string>;
  /** The session as a pi JSONL file. */
  exportFile(key: string): Promise<{ name: string; text: string }>;
}

/** The local viewer's JSON routes (src/viewer/app.ts). */
export function localData(): ViewerData {
  return {
    origins: async () => (await api<{ origins: ViewerOrigin[] }>("api/origins")).origins,
    sessions: async () => (await api<{ sessions: ViewerSessionSummary[] }>("api/sessions")).sessions,
    shape: async (key) => {
      const early = prefetchedShape(key);
      const wire = early
        ? answerBody<ShapeWire>(await early)
        : await api<ShapeWire>(`api/shape?key=${encodeURIComponent(key)}`);
      return shapeFromWire(wire);
    },
    answer: (key, at, page) => {
      const query = new URLSearchParams({ key, at });
      if (page.tail !== undefined) query.set("tail", String(page.tail));
      if (page.before !== undefined) query.set("before", String(page.before));
      return api<SelectionAnswer>(`api/context?${query}`);
    },
    texts: (key) => (from, to) =>
      api<{ from: number; texts: string[] }>(
        `api/texts?${new URLSearchParams({ key, from: String(from), to: String(to) })}`,
      ),
    search: async (q) =>
      (await api<{ items: ViewerSearchHit[] }>(`api/search?${new URLSearchParams({ q })}`)).items,
    stats: (key) => api<SessionStatsAnswer>(`api/stats?${new URLSearchParams({ key })}`),
    diff: (key, a, b) => api<BranchDiffAnswer>(`api/diff?${new URLSearchParams({ key, a, b })}`),
    actions: null,
    emptyHints: [
      "Sessions appear here once an agent writes them (pi, or sessiontree's SessionManager).",
      "Claude Code keeps its sessions in ~/.claude/projects/ and Codex in ~/.codex/sessions/: " +
        "bring them in with sessiontree import ~/.claude/projects (or the Codex folder, or one file).",
      "Point the viewer elsewhere with: sessiontree view --root DIR --pi DIR",
    ],
  };
}

/**
 * The shape the page's head script asked for before this script ran (shape-prefetch.ts), when it
 * is `key`'s; taken once, so a later open or reload asks again.
 */
function prefetchedShape(key: string): Promise<PrefetchedAnswer> | null {
  const slot = window as unknown as Record<string, ShapePrefetch | undefined>;
  const early = slot[SHAPE_PREFETCH_GLOBAL];
  delete slot[SHAPE_PREFETCH_GLOBAL];
  return early?.key === key ? early.answer : null;
}
