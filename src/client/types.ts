import type { Static } from "@sinclair/typebox";
import type * as S from "../server/schemas.js";

/** Wire types, derived from the server's own schemas (type-only: nothing of the server is loaded). */
export type SessionSummary = Static<typeof S.SessionSummary>;
export type SessionPage = Static<typeof S.SessionPage>;
export type ListQuery = Static<typeof S.ListQuery>;
export type CreateSessionInput = Static<typeof S.CreateSessionBody>;
export type EntryInput = Static<typeof S.EntryInput> & Record<string, unknown>;
export type Entry = Static<typeof S.Entry> & Record<string, unknown>;
export type AppendResult = Static<typeof S.AppendResult>;
export type WriteResult = Static<typeof S.WriteResult>;
export type EntryPage = Static<typeof S.EntryPage>;
export type BranchResult = Static<typeof S.BranchResult>;
export type ContextResult = Static<typeof S.ContextResult>;
export type TreeResult = Static<typeof S.TreeResult>;
export type SessionStatsResult = Static<typeof S.SessionStatsResult>;
export type StatsQuery = Static<typeof S.StatsQuery>;
export type RootStatsResult = Static<typeof S.RootStatsResult>;
export type RootStatsQuery = Static<typeof S.RootStatsQuery>;
export type ApiKeyInfo = Static<typeof S.ApiKeyInfo>;
export type CreatedKey = Static<typeof S.CreatedKey>;
export type DeletionRecord = Static<typeof S.DeletionRecord>;
export type SyncStateResult = Static<typeof S.SyncStateResult>;
export type SyncSessionInput = Static<typeof S.SyncSessionBody>;
export type SyncSessionResult = Static<typeof S.SyncSessionResult>;
export type SearchQuery = Static<typeof S.SearchQuery>;
export type SearchResult = Static<typeof S.SearchResult>;

/** Options of every write. */
export interface WriteOptions {
  /** Expected revision (sent as If-Match): a stale one fails with status 412, code "conflict". */
  ifMatch?: number;
  /** Sent as Idempotency-Key: a retry with the same key gets the first answer, not a second write. */
  idempotencyKey?: string;
}

export interface ClientOptions {
  /** e.g. "http://127.0.0.1:7373" */
  baseUrl: string;
  /** An API key (`st_…`) or a JWT. */
  token: string;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
}
