import type { ProjectedContext } from "../core/context.js";
import type { SessionEntry, SessionHeader } from "../core/entry.js";

export interface JsonExportInput {
  header: SessionHeader;
  /** Every entry in storage order. */
  entries: readonly SessionEntry[];
  leafId: string | null;
  name?: string;
  labels?: ReadonlyMap<string, string>;
  /** The ids of the leaf's path, root first. */
  branch: readonly string[];
  context: ProjectedContext;
}

/** The shape of `sessiontree export --json`: one self-describing document a script can read. */
export interface JsonExport {
  format: "sessiontree-export";
  version: 1;
  header: SessionHeader;
  name: string | null;
  leafId: string | null;
  labels: Record<string, string>;
  entries: SessionEntry[];
  branch: string[];
  context: {
    messages: ProjectedContext["messages"];
    messageEntryIds: string[];
    model: ProjectedContext["model"];
    thinkingLevel: string;
    warnings: ProjectedContext["warnings"];
  };
}

/** The whole session (every branch) plus the leaf's path and context, as one JSON document. */
export function exportJson(input: JsonExportInput): JsonExport {
  const { context } = input;
  return {
    format: "sessiontree-export",
    version: 1,
    header: input.header,
    name: input.name ?? null,
    leafId: input.leafId,
    labels: Object.fromEntries(input.labels ?? []),
    entries: [...input.entries],
    branch: [...input.branch],
    context: {
      messages: context.messages,
      messageEntryIds: context.messageEntryIds,
      model: context.model,
      thinkingLevel: context.thinkingLevel,
      warnings: context.warnings,
    },
  };
}
