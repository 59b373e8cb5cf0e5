import { Type } from "@sinclair/typebox";

/**
 * The API's TypeBox schemas: validated at the edge and published in /openapi.json from the same
 * objects, so the document cannot drift from what the server accepts.
 */

/** Ids as core's `isSafeId` allows them: no path separators, no control characters. */
const SafeId = Type.String({ pattern: "^[A-Za-z0-9._:-]{1,128}$", maxLength: 128 });

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

export const Entry = Type.Object(
  {
    type: Type.String(),
    id: Type.String(),
    parentId: Type.Union([Type.String(), Type.Null()]),
    timestamp: Type.String(),
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
  timestamp: Type.String(),
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

export const CreateKeyBody = Type.Object(
  { name: Type.Optional(Type.String({ maxLength: 256 })) },
  { additionalProperties: false },
);

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
