/**
 * The page's data on the session service: the `/v1` API itself, called from the page with the
 * signed-in user's credential (`Authorization: Bearer`), so the page sees exactly what that user's
 * API sees and every write is an API write guarded by `If-Match`. A session is read in pages of
 * entries (`GET …/entries`) and indexed here with the same code the single-file export runs
 * (LoadedSession: its shape, row texts, an entry and a page of the context at it).
 */
import type { SessionEntry, SessionHeader } from "../../core/entry.js";
import { ConflictError } from "../../core/errors.js";
import { treeOf } from "../context-at.js";
import { LoadedSession } from "../loaded-session.js";
import { type BranchDiffAnswer, diffOf, type SessionStatsAnswer } from "../session-insights.js";
import type { ViewerOrigin, ViewerSearchHit, ViewerSession, ViewerSessionSummary } from "../source.js";
import type { SessionActions, ViewerData } from "./data.js";

/** A session's summary as `GET /v1/sessions/{id}` answers it (the fields the page reads). */
interface ServiceSummary {
  id: string;
  cwd: string;
  name?: string;
  parentSession?: string;
  createdAt: string;
  modifiedAt: string;
  revision: number;
  leafId: string | null;
  entryCount: number;
  messageCount: number;
  firstMessage: string;
}

/** A session as last read: its summary (the revision writes name) and every entry up to it. */
interface Kept {
  summary: ServiceSummary;
  entries: SessionEntry[];
  loaded: LoadedSession;
}

/** Entries per `GET …/entries` (the API's most). */
const ENTRY_PAGE = 5000;
/** Sessions per `GET /v1/sessions` page, and pages read at most (the list's length). */
const LIST_PAGE = 1000;
const LIST_PAGES = 20;
/** Entries and bytes per append of a fork, under the API's limits (1,000 entries, 8 MiB). */
const FORK_BATCH = 500;
const FORK_BATCH_BYTES = 4 * 1024 * 1024;

/** An error answer of the API: its status and `code`, and on 412 the current revision. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

interface RequestOptions {
  method?: string;
  body?: unknown;
  /** The revision the page showed: sent as `If-Match`. */
  ifMatch?: number;
}

export class ServiceData implements ViewerData {
  private readonly kept = new Map<string, Kept>();
  /** Whether each session was imported, as its stats said (a header the page never sees). */
  private readonly imported = new Map<string, boolean>();
  readonly actions: SessionActions;
  readonly emptyHints = [
    "This account has no sessions yet: an agent writing to this server (sessiontree chat, the " +
      "client, an adapter) or sessiontree import makes them.",
  ];

  constructor(
    private readonly credential: string,
    /** Called when the API refuses the credential (401): the page goes back to signing in. */
    private readonly signedOut: (message: string) => void,
  ) {
    this.actions = {
      checkout: (key, entryId) => this.write(key, "PUT", "leaf", { leafId: entryId }),
      label: (key, entryId, label) => this.write(key, "POST", "labels", { targetId: entryId, label }),
      fork: (key, entryId) => this.fork(key, entryId),
      exportFile: async (key) => {
        const res = await this.request(`${sessionPath(key)}/export`);
        return { name: `${key}.jsonl`, text: await res.text() };
      },
    };
  }

  async origins(): Promise<ViewerOrigin[]> {
    return [{ source: "service", location: location.host, exists: true }];
  }

  async sessions(): Promise<ViewerSessionSummary[]> {
    const all: ViewerSessionSummary[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < LIST_PAGES; page++) {
      const query = new URLSearchParams({ limit: String(LIST_PAGE) });
      if (cursor !== null) query.set("cursor", cursor);
      const answer = await this.json<{ items: ServiceSummary[]; nextCursor: string | null }>(
        `v1/sessions?${query}`,
      );
      for (const s of answer.items) all.push(listed(s));
      cursor = answer.nextCursor;
      if (cursor === null) break;
    }
    return all;
  }

  async shape(key: string) {
    return (await this.read(key)).loaded.shape;
  }

  async answer(key: string, entryId: string, page: { tail?: number; before?: number }) {
    const kept = this.kept.get(key) ?? (await this.read(key));
    return kept.loaded.select(entryId, page);
  }

  texts(key: string) {
    // The shape being opened is the one kept now: its node numbers are its own.
    const loaded = this.kept.get(key)?.loaded;
    return async (from: number, to: number) => {
      if (!loaded) throw new Error("The session is not open");
      return loaded.textsOf(from, to);
    };
  }

  async search(query: string): Promise<ViewerSearchHit[]> {
    // The service's index (`GET /v1/search`): a session's key on this page is its id.
    const answer = await this.json<{ hits: Omit<ViewerSearchHit, "key">[] }>(
      `v1/search?${new URLSearchParams({ q: query })}`,
    );
    return answer.hits.map((hit) => ({ ...hit, key: hit.sessionId }));
  }

  /** `GET …/stats`: the API reads the session and runs `sessiontree stats`'s own functions. */
  async stats(key: string): Promise<SessionStatsAnswer> {
    const answer = await this.json<SessionStatsAnswer>(`${sessionPath(key)}/stats`);
    this.imported.set(key, answer.imported);
    return answer;
  }

  /**
   * Computed here, over the entries the page holds, by format's `branchDiff` (bundled): no route.
   * Only whether the session was imported (its zero usage is then unknown) comes from the API, which
   * keeps the header: its stats say, asked once per session.
   */
  async diff(key: string, a: string, b: string): Promise<BranchDiffAnswer> {
    const kept = this.kept.get(key) ?? (await this.read(key));
    const imported = this.imported.get(key) ?? (await this.stats(key)).imported;
    return diffOf(kept.loaded, a, b, imported);
  }

  /**
   * The session as it is now: its summary first (one small read), then only the entries appended
   * since it was last read: entries never change, so a kept prefix stays right. The summary's
   * revision is the one the next write names.
   */
  private async read(key: string): Promise<Kept> {
    const summary = await this.json<ServiceSummary>(sessionPath(key));
    const before = this.kept.get(key);
    if (before && before.summary.revision === summary.revision) return before;
    const entries = before && before.entries.length <= summary.entryCount ? before.entries.slice() : [];
    while (entries.length < summary.entryCount) {
      const limit = Math.min(ENTRY_PAGE, summary.entryCount - entries.length);
      const page = await this.json<{ entries: SessionEntry[] }>(
        `${sessionPath(key)}/entries?after=${entries.length}&limit=${limit}`,
      );
      if (page.entries.length === 0) break;
      for (const entry of page.entries) entries.push(entry);
    }
    const kept = { summary, entries, loaded: LoadedSession.of(viewerSession(key, summary, entries)) };
    this.kept.set(key, kept);
    return kept;
  }

  /** A write to one session, naming the revision the page showed. */
  private async write(key: string, method: string, path: string, body: unknown): Promise<void> {
    const kept = this.kept.get(key) ?? (await this.read(key));
    await this.request(`${sessionPath(key)}/${path}`, { method, body, ifMatch: kept.summary.revision });
  }

  /**
   * A new session holding the path root → entry, as `sessiontree fork --at` makes one: created,
   * then filled by appends that each name the new session's revision (nothing else can have
   * written to it in between, and if something did, the fork stops rather than interleave).
   */
  private async fork(key: string, entryId: string): Promise<string> {
    const kept = this.kept.get(key) ?? (await this.read(key));
    const { summary } = kept;
    const path = kept.loaded.tree.getBranch(entryId);
    const name = `${summary.name || summary.firstMessage.slice(0, 60) || summary.id} (fork)`;
    const created = await this.json<ServiceSummary>("v1/sessions", {
      method: "POST",
      body: { cwd: summary.cwd, name, parentSession: summary.id },
    });
    let revision = created.revision;
    for (const batch of batches(path)) {
      const answer = await this.json<{ revision: number }>(`${sessionPath(created.id)}/entries`, {
        method: "POST",
        body: { entries: batch },
        ifMatch: revision,
      });
      revision = answer.revision;
    }
    return created.id;
  }

  private async json<T>(path: string, options: RequestOptions = {}): Promise<T> {
    return (await (await this.request(path, options)).json()) as T;
  }

  private async request(path: string, options: RequestOptions = {}): Promise<Response> {
    const headers: Record<string, string> = { Authorization: `Bearer ${this.credential}` };
    if (options.body !== undefined) headers["Content-Type"] = "application/json";
    if (options.ifMatch !== undefined) headers["If-Match"] = `"${options.ifMatch}"`;
    const res = await fetch(path, {
      method: options.method ?? "GET",
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      // The credential travels in the header only: no cookie is sent, nothing is cached.
      credentials: "omit",
      cache: "no-store",
    });
    if (res.ok) return res;
    const error = (await res.json().catch(() => ({}))) as {
      code?: string;
      message?: string;
      currentRevision?: number;
    };
    const message = error.message || res.statusText || `HTTP ${res.status}`;
    if (res.status === 401) this.signedOut(message);
    if (res.status === 412) throw new ConflictError(message, error.currentRevision);
    throw new ApiError(res.status, error.code ?? "http_error", message);
  }
}

function sessionPath(key: string): string {
  return `v1/sessions/${encodeURIComponent(key)}`;
}

function listed(s: ServiceSummary): ViewerSessionSummary {
  return {
    key: s.id,
    source: "service",
    id: s.id,
    cwd: s.cwd,
    name: s.name,
    firstMessage: s.firstMessage,
    messageCount: s.messageCount,
    createdAt: s.createdAt,
    modifiedAt: s.modifiedAt,
    location: `revision ${s.revision}`,
  };
}

/** What the viewer's code reads of a session, from the API's summary and entries. */
function viewerSession(key: string, summary: ServiceSummary, entries: SessionEntry[]): ViewerSession {
  const header: SessionHeader = {
    type: "session",
    version: 3,
    id: summary.id,
    timestamp: summary.createdAt,
    cwd: summary.cwd,
    ...(summary.parentSession === undefined ? {} : { parentSession: summary.parentSession }),
  };
  const session: ViewerSession = {
    key,
    source: "service",
    header,
    entries,
    leafId: summary.leafId,
    labels: {},
    name: summary.name,
    issues: [],
  };
  // Indexed once here; LoadedSession.of finds the same tree (context-at.ts keeps it).
  session.labels = Object.fromEntries(treeOf(session).getLabels());
  return session;
}

/** The fork's entries in appends the API takes: at most FORK_BATCH entries and about 4 MiB each. */
function* batches(path: readonly SessionEntry[]): Generator<SessionEntry[]> {
  let batch: SessionEntry[] = [];
  let bytes = 0;
  for (const entry of path) {
    const size = JSON.stringify(entry).length;
    if (batch.length > 0 && (batch.length >= FORK_BATCH || bytes + size > FORK_BATCH_BYTES)) {
      yield batch;
      batch = [];
      bytes = 0;
    }
    batch.push(entry);
    bytes += size;
  }
  if (batch.length > 0) yield batch;
}
