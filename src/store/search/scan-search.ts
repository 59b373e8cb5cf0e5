import type { SessionEntry } from "../../core/entry.js";
import { compareHits, type SearchHit } from "../../core/search-hit.js";
import type { ListQuery } from "../engine/cursor.js";
import type { ReadTx, StoreDriver } from "../engine/driver.js";
import { runFlow, type StoreFlow, wait } from "../engine/step.js";
import type { SessionSummary } from "../store.js";
import { searchDocs } from "./search-docs.js";
import type { SearchQuery } from "./search-query.js";
import { holdsAll, markSnippet, occurrences, scanText } from "./snippet.js";

const PAGE = 1000;

/**
 * Search without an index (memory, jsonl): every visible session of the owner read once, its
 * entries matched as the indexes match them (every term's words in a row, whole or as pieces).
 * O(the owner's entries) per query: fine for the sizes these stores hold.
 */
export async function scanSearch<S>(driver: StoreDriver<S>, query: SearchQuery): Promise<SearchHit[]> {
  const hits: SearchHit[] = [];
  for await (const summary of visibleSessions(driver, query)) {
    const key = { owner: query.owner, sessionId: summary.id };
    const found = await driver.readSession(key, (tx) => runFlow(scanFlow(tx, query)));
    hits.push(...found);
    // Keep the memory bounded: only the best `limit` so far are needed.
    if (hits.length > query.limit * 4)
      hits.splice(0, hits.length, ...hits.sort(compareHits).slice(0, query.limit));
  }
  return hits.sort(compareHits).slice(0, query.limit);
}

async function* visibleSessions<S>(
  driver: StoreDriver<S>,
  query: SearchQuery,
): AsyncGenerator<SessionSummary> {
  if (query.sessionId !== null) {
    const summary = await driver.findSummary({ owner: query.owner, sessionId: query.sessionId });
    if (summary) yield summary;
    return;
  }
  const list: ListQuery = {
    limit: PAGE,
    after: null,
    search: null,
    state: query.includeDeleted ? "all" : "active",
  };
  for (;;) {
    const rows = await driver.listSessions(query.owner, list);
    yield* rows.slice(0, PAGE);
    const last = rows[PAGE - 1];
    if (rows.length <= PAGE || !last) return;
    list.after = { modifiedAt: last.modifiedAt, id: last.id };
  }
}

function* scanFlow<S>(tx: ReadTx<S>, query: SearchQuery): StoreFlow<SearchHit[]> {
  const found = yield* wait(tx.find());
  if (!found) return [];
  const { ref, summary } = found;
  const entries = yield* wait(tx.entries(ref, 0, null));
  const matched = searchDocs(entries)
    .map((doc) => ({ ...doc, scan: scanText(doc.text) }))
    .filter((doc) => holdsAll(doc.scan, query.phrases));
  if (matched.length === 0) return [];
  const onPath = summary.leafId === null ? [] : yield* wait(tx.branch(ref, summary.leafId));
  const pathIds = new Set(onPath.map((entry: SessionEntry) => entry.id));
  return matched.map((doc) => ({
    sessionId: summary.id,
    entryId: doc.entryId,
    kind: doc.kind,
    snippet: markSnippet(doc.text, query.phrases),
    branch: pathIds.has(doc.entryId) ? "path" : "abandoned",
    timestamp: doc.timestamp,
    score: occurrences(doc.scan, query.phrases),
    ...sessionFields(summary),
  }));
}

/** The session's name and cwd, as a hit carries them (absent when unset). */
export function sessionFields(summary: {
  name?: string | null;
  cwd?: string | null;
}): Pick<SearchHit, "sessionName" | "cwd"> {
  const fields: Pick<SearchHit, "sessionName" | "cwd"> = {};
  if (summary.name) fields.sessionName = summary.name;
  if (summary.cwd) fields.cwd = summary.cwd;
  return fields;
}
