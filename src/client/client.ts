import { ValidationError } from "../core/errors.js";
import { errorFromResponse } from "./errors.js";
import type {
  ApiKeyInfo,
  AppendResult,
  BranchResult,
  ClientOptions,
  ContextResult,
  CreatedKey,
  CreateSessionInput,
  DeletionRecord,
  EntryInput,
  EntryPage,
  ListQuery,
  RootStatsQuery,
  RootStatsResult,
  SearchQuery,
  SearchResult,
  SessionPage,
  SessionStatsResult,
  SessionSummary,
  StatsQuery,
  SyncSessionInput,
  SyncSessionResult,
  SyncStateResult,
  TreeResult,
  WriteOptions,
  WriteResult,
} from "./types.js";

type Query = Record<string, string | number | boolean | undefined | null>;

/** An entry as a local file holds it (any type's fields besides these go as they are). */
interface SyncEntry {
  type: string;
  id: string;
  parentId: string | null;
  timestamp: string;
}

interface RequestSpec {
  method: string;
  path: string;
  query?: Query;
  json?: unknown;
  text?: string;
  write?: WriteOptions;
}

/**
 * A typed client for the sessiontree HTTP API. Every method throws `SessionTreeApiError`
 * (with `status` and `code`) on an error answer.
 *
 * @example
 * const client = new SessionTreeClient({ baseUrl: "http://127.0.0.1:7373", token: process.env.ST_KEY! });
 * const session = await client.createSession({ cwd: "/work" });
 * await client.append(session.id, [{ type: "message", message: { role: "user", content: "hi", timestamp: Date.now() } }]);
 */
export class SessionTreeClient {
  private readonly baseUrl: string;
  private readonly fetcher: typeof fetch;

  constructor(private readonly options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.fetcher = options.fetch ?? globalThis.fetch;
  }

  createSession(input: CreateSessionInput = {}, write?: WriteOptions): Promise<SessionSummary> {
    return this.json({ method: "POST", path: "/v1/sessions", json: input, write });
  }
  listSessions(query: ListQuery = {}): Promise<SessionPage> {
    return this.json({ method: "GET", path: "/v1/sessions", query });
  }
  getSession(id: string, options: { includeDeleted?: boolean } = {}): Promise<SessionSummary> {
    return this.json({ method: "GET", path: `/v1/sessions/${enc(id)}`, query: options });
  }
  renameSession(id: string, name: string, write?: WriteOptions): Promise<SessionSummary> {
    return this.json({ method: "PATCH", path: `/v1/sessions/${enc(id)}`, json: { name }, write });
  }
  deleteSession(id: string, write?: WriteOptions): Promise<WriteResult> {
    return this.json({ method: "DELETE", path: `/v1/sessions/${enc(id)}`, write });
  }
  restoreSession(id: string, write?: WriteOptions): Promise<WriteResult> {
    return this.json({ method: "POST", path: `/v1/sessions/${enc(id)}/restore`, write });
  }
  /** Gone for good; with `ifMatch`, only if the session is still at that revision. */
  async purgeSession(id: string, write?: Pick<WriteOptions, "ifMatch">): Promise<void> {
    await this.send({ method: "POST", path: `/v1/sessions/${enc(id)}/purge`, write });
  }

  /** Appends a batch; leave out id/parentId/timestamp to chain under the leaf. */
  append(
    id: string,
    entries: EntryInput[],
    write?: WriteOptions & { moveLeaf?: boolean },
  ): Promise<AppendResult> {
    const json = write?.moveLeaf === undefined ? { entries } : { entries, moveLeaf: write.moveLeaf };
    return this.json({ method: "POST", path: `/v1/sessions/${enc(id)}/entries`, json, write });
  }
  readEntries(id: string, query: { after?: number; limit?: number } = {}): Promise<EntryPage> {
    return this.json({ method: "GET", path: `/v1/sessions/${enc(id)}/entries`, query });
  }
  readBranch(id: string, leafId?: string): Promise<BranchResult> {
    return this.json({ method: "GET", path: `/v1/sessions/${enc(id)}/branch`, query: { leafId } });
  }
  setLeaf(id: string, leafId: string | null, write?: WriteOptions): Promise<WriteResult> {
    return this.json({ method: "PUT", path: `/v1/sessions/${enc(id)}/leaf`, json: { leafId }, write });
  }
  branch(
    id: string,
    fromId: string | null,
    summary?: { summary: string; details?: unknown },
    write?: WriteOptions,
  ) {
    const json = { fromId, ...summary };
    return this.json<AppendResult>({ method: "POST", path: `/v1/sessions/${enc(id)}/branches`, json, write });
  }
  getLabels(id: string): Promise<{ labels: Record<string, string> }> {
    return this.json({ method: "GET", path: `/v1/sessions/${enc(id)}/labels` });
  }
  setLabel(
    id: string,
    targetId: string,
    label: string | undefined,
    write?: WriteOptions,
  ): Promise<AppendResult> {
    return this.json({
      method: "POST",
      path: `/v1/sessions/${enc(id)}/labels`,
      json: { targetId, label },
      write,
    });
  }
  getContext(id: string, leafId?: string): Promise<ContextResult> {
    return this.json({ method: "GET", path: `/v1/sessions/${enc(id)}/context`, query: { leafId } });
  }
  getTree(id: string): Promise<TreeResult> {
    return this.json({ method: "GET", path: `/v1/sessions/${enc(id)}/tree` });
  }
  /** Tokens, cost, time and tool calls of one session (`sessiontree stats <session>`). */
  sessionStats(id: string, query: StatsQuery = {}): Promise<SessionStatsResult> {
    return this.json({ method: "GET", path: `/v1/sessions/${enc(id)}/stats`, query: { ...query } });
  }
  /** The same over all of the user's sessions, in rows `by` session (default), day (UTC), model or cwd. */
  stats(query: RootStatsQuery = {}): Promise<RootStatsResult> {
    return this.json({ method: "GET", path: "/v1/stats", query: { ...query } });
  }
  async exportJsonl(id: string): Promise<string> {
    return (await this.send({ method: "GET", path: `/v1/sessions/${enc(id)}/export` })).text();
  }
  importJsonl(jsonl: string, write?: WriteOptions): Promise<SessionSummary> {
    return this.json({ method: "POST", path: "/v1/sessions/import", text: jsonl, write });
  }

  /** Full-text search over the user's sessions (`GET /v1/search`): hits best first, then newest. */
  search(q: string, options: Omit<SearchQuery, "q"> = {}): Promise<SearchResult> {
    return this.json({ method: "GET", path: "/v1/search", query: { q, ...options } });
  }

  listKeys(): Promise<{ items: ApiKeyInfo[] }> {
    return this.json({ method: "GET", path: "/v1/keys" });
  }
  createKey(name?: string): Promise<CreatedKey> {
    return this.json({ method: "POST", path: "/v1/keys", json: name === undefined ? {} : { name } });
  }
  async revokeKey(keyId: string): Promise<void> {
    await this.send({ method: "DELETE", path: `/v1/keys/${enc(keyId)}` });
  }
  listDeletions(limit?: number): Promise<{ items: DeletionRecord[] }> {
    return this.json({ method: "GET", path: "/v1/deletions", query: { limit } });
  }

  /** `sessiontree sync`'s comparison: the service's digest, and every session's mark when it differs. */
  syncState(digest: string): Promise<SyncStateResult> {
    return this.json({ method: "POST", path: "/v1/sync/state", json: { digest } });
  }
  /** Creates a session with this id and header, or describes the one there (header, leaf, trash). */
  putSyncSession(id: string, header: SyncSessionInput): Promise<SyncSessionResult> {
    return this.json({ method: "PUT", path: `/v1/sync/sessions/${enc(id)}`, json: header });
  }
  /**
   * Appends entries as a local copy holds them (id, parent, timestamp given), idempotent by id,
   * without moving the leaf; a leaf marker goes only with an entry of the batch under it.
   */
  syncAppend(id: string, entries: readonly SyncEntry[]): Promise<AppendResult> {
    return this.json({ method: "POST", path: `/v1/sync/sessions/${enc(id)}/entries`, json: { entries } });
  }

  private async json<T>(spec: RequestSpec): Promise<T> {
    return (await (await this.send(spec)).json()) as T;
  }

  private async send(spec: RequestSpec): Promise<Response> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.options.token}` };
    let body: string | undefined;
    if (spec.json !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(spec.json);
    } else if (spec.text !== undefined) {
      headers["content-type"] = "application/x-ndjson";
      body = spec.text;
    }
    if (spec.write?.ifMatch !== undefined) headers["if-match"] = `"${spec.write.ifMatch}"`;
    if (spec.write?.idempotencyKey !== undefined) headers["idempotency-key"] = spec.write.idempotencyKey;
    const response = await this.fetcher(this.url(spec.path, spec.query), {
      method: spec.method,
      headers,
      body,
    });
    if (!response.ok) throw await errorFromResponse(response);
    return response;
  }

  private url(path: string, query: Query = {}): string {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query))
      if (value !== undefined && value !== null) params.set(name, String(value));
    const search = params.toString();
    return `${this.baseUrl}${path}${search ? `?${search}` : ""}`;
  }
}

/**
 * An id as a path segment. `.` and `..` are no id (the service refuses them) and a URL resolves
 * them away (`/v1/sessions/.` is the list), so they are refused here rather than sent.
 */
function enc(id: string): string {
  if (id === "." || id === "..") throw new ValidationError("invalid_argument", `"${id}" is not an id`);
  return encodeURIComponent(id);
}
