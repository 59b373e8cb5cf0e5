import { Type } from "@sinclair/typebox";

/**
 * The API's TypeBox schemas: validated at the edge and published in /openapi.json from the same
 * objects, so the document cannot drift from what the server accepts.
 */

/** Ids as core's `isSafeId` allows them: no path separators, no control characters. */
// `.` and `..` are dot segments a URL resolves away: never ids (core/validate.ts isSafeId).
const SafeId = Type.String({ pattern: "^(?!\\.\\.?$)[A-Za-z0-9._:-]{1,128}$", maxLength: 128 });

/** Text that ends up in indexed columns: no NUL (PostgreSQL's text type cannot hold it). */
const Text = (maxLength: number) => Type.String({ maxLength, pattern: "^[^\\u0000]*$" });

export const SessionParams = Type.Object({ id: SafeId });
export const KeyParams = Type.Object({ keyId: SafeId });

export const ErrorBody = Type.Object(
  {
    code: Type.String(),
    message: Type.String(),
    currentRevision: Type.Optional(Type.Integer()),
    details: Type.Optional(Type.Unknown()),
  },
  { $id: "Error" },
);

export const SessionSummary = Type.Object(
  {
    id: Type.String(),
    cwd: Type.String(),
    name: Type.Optional(Type.String()),
    parentSession: Type.Optional(Type.String()),
    createdAt: Type.String(),
    modifiedAt: Type.String(),
    revision: Type.Integer(),
    leafId: Type.Union([Type.String(), Type.Null()]),
    entryCount: Type.Integer(),
    messageCount: Type.Integer(),
    firstMessage: Type.String(),
    deletedAt: Type.Union([Type.String(), Type.Null()]),
    /** When the session moved to object storage; it reads as any other, a little slower the first time. */
    archivedAt: Type.Optional(Type.String()),
  },
  { $id: "SessionSummary" },
);

export const SessionPage = Type.Object({
  items: Type.Array(SessionSummary),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
});

export const ListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  cursor: Type.Optional(Type.String({ maxLength: 1024 })),
  search: Type.Optional(Text(256)),
  state: Type.Optional(Type.Union([Type.Literal("active"), Type.Literal("deleted"), Type.Literal("all")])),
});

export const CreateSessionBody = Type.Object(
  {
    cwd: Type.Optional(Text(4096)),
    name: Type.Optional(Text(1024)),
    parentSession: Type.Optional(Text(4096)),
  },
  { additionalProperties: false },
);

export const RenameBody = Type.Object({ name: Text(1024) }, { additionalProperties: false });

/**
 * An entry as a client sends it. `id`, `parentId` and `timestamp` may be left out: the server fills
 * them in (a fresh id; the previous entry of the batch or the session's leaf; now). Give all three
 * to make a retried append idempotent by entry id. Other fields depend on `type` (pi's v3 format).
 */
export const EntryInput = Type.Object(
  {
    type: Type.String({ minLength: 1, maxLength: 128 }),
    id: Type.Optional(SafeId),
    parentId: Type.Optional(Type.Union([SafeId, Type.Null()])),
    timestamp: Type.Optional(Type.String({ maxLength: 64 })),
  },
  { additionalProperties: true, $id: "EntryInput" },
);

/**
 * An entry's time as stored: an ISO string for every entry this service or pi wrote, but history
 * imported or synced from a damaged file keeps what its line held (missing, a number…), as read.
 */
function HistoryTimestamp() {
  return Type.Optional(
    Type.Unknown({
      description: "ISO 8601 time; history kept from a damaged file may hold another value, or none",
    }),
  );
}

export const Entry = Type.Object(
  {
    type: Type.String(),
    id: Type.String(),
    parentId: Type.Union([Type.String(), Type.Null()]),
    timestamp: HistoryTimestamp(),
  },
  { additionalProperties: true, $id: "Entry" },
);

export const AppendBody = Type.Object(
  {
    entries: Type.Array(EntryInput, { minItems: 1 }),
    /** Move the leaf to the last entry of the batch (default true). */
    moveLeaf: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export const AppendResult = Type.Object({
  revision: Type.Integer(),
  leafId: Type.Union([Type.String(), Type.Null()]),
  appended: Type.Array(Type.String()),
  skipped: Type.Array(Type.String()),
});

export const WriteResult = Type.Object({
  revision: Type.Integer(),
  leafId: Type.Union([Type.String(), Type.Null()]),
});

export const EntriesQuery = Type.Object({
  after: Type.Optional(Type.Integer({ minimum: 0 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 5000 })),
});

export const EntryPage = Type.Object({
  entries: Type.Array(Entry),
  nextAfter: Type.Union([Type.Integer(), Type.Null()]),
});

export const LeafQuery = Type.Object({ leafId: Type.Optional(SafeId) });

export const BranchResult = Type.Object({
  leafId: Type.Union([Type.String(), Type.Null()]),
  entries: Type.Array(Entry),
});

export const SetLeafBody = Type.Object(
  { leafId: Type.Union([SafeId, Type.Null()]) },
  { additionalProperties: false },
);

export const BranchBody = Type.Object(
  {
    /** The entry to continue from (null: before the root). */
    fromId: Type.Union([SafeId, Type.Null()]),
    /** When given, a branch_summary entry is appended under `fromId` and becomes the leaf. */
    summary: Type.Optional(Type.String({ maxLength: 1_000_000 })),
    details: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false },
);

export const LabelBody = Type.Object(
  {
    targetId: SafeId,
    /** Empty or missing clears the label. */
    label: Type.Optional(Text(1024)),
  },
  { additionalProperties: false },
);

export const LabelsResult = Type.Object({ labels: Type.Record(Type.String(), Type.String()) });

export const ContextResult = Type.Object({
  leafId: Type.Union([Type.String(), Type.Null()]),
  messages: Type.Array(Type.Unknown()),
  thinkingLevel: Type.String(),
  model: Type.Union([Type.Object({ provider: Type.String(), modelId: Type.String() }), Type.Null()]),
  extensionState: Type.Record(Type.String(), Type.Unknown()),
  messageEntryIds: Type.Array(Type.String()),
  warnings: Type.Array(Type.Unknown()),
});

export const TreeNode = Type.Object({
  id: Type.String(),
  parentId: Type.Union([Type.String(), Type.Null()]),
  type: Type.String(),
  timestamp: HistoryTimestamp(),
  label: Type.Optional(Type.String()),
  children: Type.Array(Type.String()),
});

/** Flat on purpose: a nested tree 100k entries deep would overflow JSON.stringify. */
export const TreeResult = Type.Object({
  leafId: Type.Union([Type.String(), Type.Null()]),
  roots: Type.Array(Type.String()),
  nodes: Type.Array(TreeNode),
});

export const ApiKeyInfo = Type.Object({
  id: Type.String(),
  name: Type.String(),
  createdAt: Type.String(),
  revokedAt: Type.Union([Type.String(), Type.Null()]),
  /** Refused from then on; null: until revoked. */
  expiresAt: Type.Union([Type.String(), Type.Null()]),
  /** The last request it authenticated, to the minute; null: never used. */
  lastUsedAt: Type.Union([Type.String(), Type.Null()]),
});

export const CreateKeyBody = Type.Object({ name: Type.Optional(Text(256)) }, { additionalProperties: false });

export const CreatedKey = Type.Object({ key: Type.String(), info: ApiKeyInfo });
export const KeyList = Type.Object({ items: Type.Array(ApiKeyInfo) });

export const DeletionRecord = Type.Object({
  sessionId: Type.String(),
  action: Type.String(),
  actor: Type.String(),
  via: Type.String(),
  at: Type.String(),
});

export const DeletionList = Type.Object({ items: Type.Array(DeletionRecord) });

export const Health = Type.Object({ ok: Type.Boolean(), store: Type.String() });

/** `sessiontree sync`: the digest of the sessions a copy last saw (format/sync-digest.ts). */
export const SyncStateBody = Type.Object(
  { digest: Type.String({ pattern: "^[0-9a-f]{0,64}$", maxLength: 64 }) },
  { additionalProperties: false },
);

export const SyncMark = Type.Object({
  id: Type.String(),
  revision: Type.Integer(),
  entryCount: Type.Integer(),
});

/** The service's digest; `sessions` (every active session's mark) only when it differs from the copy's. */
export const SyncStateResult = Type.Object({
  digest: Type.String(),
  sessions: Type.Optional(Type.Array(SyncMark)),
});

/** A session header as a local copy has it: what `PUT /v1/sync/sessions/{id}` creates. */
export const SyncSessionBody = Type.Object(
  {
    timestamp: Type.String({ minLength: 1, maxLength: 64 }),
    cwd: Text(4096),
    parentSession: Type.Optional(Text(4096)),
  },
  { additionalProperties: false },
);

/**
 * Entries as a local copy holds them (id, parent and timestamp given: nothing is filled in), for
 * `POST /v1/sync/sessions/{id}/entries`. A leaf marker is accepted when an entry of the batch
 * hangs under it (another writer built on it: history); the leaf does not move.
 */
export const SyncAppendBody = Type.Object(
  {
    entries: Type.Array(
      Type.Object(
        {
          type: Type.String({ minLength: 1, maxLength: 128 }),
          id: SafeId,
          parentId: Type.Union([SafeId, Type.Null()]),
          // History as its file holds it: an entry whose timestamp is missing or not a string is
          // kept as malformed (the store's `history` check), as every file reader keeps it.
          timestamp: Type.Optional(Type.Unknown()),
        },
        { additionalProperties: true },
      ),
      { minItems: 1 },
    ),
  },
  { additionalProperties: false },
);

/** The session's header and where it stands; `created` when this call made it. */
export const SyncSessionResult = Type.Object({
  created: Type.Boolean(),
  header: Type.Object({
    id: Type.String(),
    timestamp: Type.String(),
    cwd: Type.String(),
    parentSession: Type.Optional(Type.String()),
  }),
  revision: Type.Integer(),
  leafId: Type.Union([Type.String(), Type.Null()]),
  entryCount: Type.Integer(),
  deletedAt: Type.Union([Type.String(), Type.Null()]),
});

// Stats (GET /v1/sessions/{id}/stats, GET /v1/stats): the shapes of src/format/stats*.ts.
const Count = Type.Integer({ minimum: 0 });
const MaybeTime = Type.Union([Type.String(), Type.Null()]);
const TokenCounts = Type.Object({
  input: Type.Number(),
  output: Type.Number(),
  cacheRead: Type.Number(),
  cacheWrite: Type.Number(),
  total: Type.Number(),
});
/** Totals of a set of entries; assistant messages without usage are counted in usageUnknown, never as 0. */
export const StatsTally = Type.Object({
  entries: Count,
  assistantMessages: Count,
  usageUnknown: Count,
  costUnknown: Count,
  tokens: TokenCounts,
  cost: TokenCounts,
  toolCalls: Count,
  toolErrors: Count,
  activeMs: Type.Number(),
});
const StatsSummaryFields = {
  entries: Count,
  time: Type.Object({
    first: MaybeTime,
    last: MaybeTime,
    wallMs: Type.Number(),
    activeMs: Type.Number(),
    idleGapMs: Type.Number(),
    undatedEntries: Count,
  }),
  total: StatsTally,
  leafPath: StatsTally,
  abandoned: StatsTally,
  abandonedShare: Type.Object({
    entries: Type.Union([Type.Number(), Type.Null()]),
    tokens: Type.Union([Type.Number(), Type.Null()]),
  }),
  models: Type.Array(Type.Composite([Type.Object({ model: Type.String() }), StatsTally])),
  tools: Type.Array(Type.Object({ name: Type.String(), calls: Count, results: Count, errors: Count })),
};
/** `since`: a date (UTC midnight), a date and time with its zone, or a time ago (30m, 12h, 7d, 2w). */
const Since = Type.String({
  pattern:
    "^(\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:\\d{2}))?|\\d{1,6}[mhdw])$",
});
export const StatsQuery = Type.Object({
  since: Type.Optional(Since),
  /** Minutes: gaps between entries longer than this are idle, not active time (default 10). */
  idle: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 525_600 })),
});
export const SessionStatsResult = Type.Object({
  sessionId: Type.String(),
  cwd: Type.String(),
  name: Type.Union([Type.String(), Type.Null()]),
  imported: Type.Boolean(),
  leafId: Type.Union([Type.String(), Type.Null()]),
  since: MaybeTime,
  ...StatsSummaryFields,
  abandonedBranches: Type.Array(
    Type.Object({
      firstId: Type.String(),
      forkedFrom: Type.Union([Type.String(), Type.Null()]),
      tag: Type.String(),
      text: Type.String(),
      last: MaybeTime,
      tally: StatsTally,
    }),
  ),
});
export const RootStatsQuery = Type.Composite([
  StatsQuery,
  Type.Object({
    by: Type.Optional(
      Type.Union([Type.Literal("day"), Type.Literal("model"), Type.Literal("cwd"), Type.Literal("session")]),
    ),
  }),
]);
export const RootStatsResult = Type.Object({
  sessions: Count,
  by: Type.String(),
  since: MaybeTime,
  ...StatsSummaryFields,
  groups: Type.Array(
    Type.Object({
      key: Type.String(),
      sessions: Count,
      total: StatsTally,
      abandoned: StatsTally,
      first: MaybeTime,
      last: MaybeTime,
      name: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    }),
  ),
});

/** `GET /v1/search`: full-text search over the user's sessions (docs/server.md, "Search"). */
export const SearchQuery = Type.Object({
  q: Text(512),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
  sessionId: Type.Optional(SafeId),
});
export const SearchHit = Type.Object(
  {
    sessionId: Type.String(),
    entryId: Type.String(),
    kind: Type.Union(
      (["user", "assistant", "toolResult", "custom", "summary"] as const).map((k) => Type.Literal(k)),
    ),
    snippet: Type.String(),
    branch: Type.Union([Type.Literal("path"), Type.Literal("abandoned")]),
    timestamp: Type.String(),
    score: Type.Number(),
    sessionName: Type.Optional(Type.String()),
    cwd: Type.Optional(Type.String()),
  },
  { $id: "SearchHit" },
);
export const SearchResult = Type.Object({ hits: Type.Array(SearchHit) });
