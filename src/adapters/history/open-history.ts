import { v7 as uuidv7 } from "uuid";
import { ValidationError } from "../../core/errors.js";
import type { SessionManagerLike } from "../../session/session-manager-like.js";
import type { History } from "./history.js";
import { ManagerHistory } from "./manager-history.js";
import { StoreHandle, StoreHistory, type StoreOrLocation } from "./store-history.js";

/** Where a conversation lives: a store session, or a SessionManager. */
export interface HistorySource {
  /** A SessionStore, or a location for `openStore` ("sqlite:chats.db", "jsonl:folder", "memory:"). */
  store?: StoreOrLocation;
  /** Or a SessionManager (sessiontree's, or pi's own): the session it has open. */
  manager?: SessionManagerLike;
  /** The store's tenant. Default "local". */
  owner?: string;
  /** The store session's `cwd` header field when it is created. Default "". */
  cwd?: string;
}

export const DEFAULT_OWNER = "local";

/** Exactly one of `store` and `manager`, as a typed error when the options say neither or both. */
export function checkSource(source: HistorySource): void {
  if ((source.store === undefined) === (source.manager === undefined)) {
    throw new ValidationError("invalid_argument", "Give either `store` or `manager`", {
      details: { store: source.store !== undefined, manager: source.manager !== undefined },
    });
  }
}

/** The History of one session of `source` (a new UUID v7 when `sessionId` is not given). */
export function openHistory(
  source: HistorySource,
  handle: StoreHandle | undefined,
  sessionId?: string,
): History {
  checkSource(source);
  if (source.manager) return new ManagerHistory(source.manager);
  const store = handle ?? new StoreHandle(source.store as StoreOrLocation);
  return new StoreHistory(store, source.owner ?? DEFAULT_OWNER, sessionId ?? uuidv7(), {
    cwd: source.cwd ?? "",
  });
}
