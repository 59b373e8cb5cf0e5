import type { SessionEntry, SessionHeader } from "../core/entry.js";
import { SessionTree } from "../core/tree.js";
import { renderViewerDocument } from "./page.js";

export interface HtmlExportInput {
  header: SessionHeader;
  /** Every entry in storage order (all branches). */
  entries: readonly SessionEntry[];
  leafId: string | null;
  /** Resolved labels; read from the entries' label records when left out. */
  labels?: ReadonlyMap<string, string> | Readonly<Record<string, string>>;
}

/**
 * The viewer's drawing of one session as a single self-contained HTML file: data, script and
 * styles inlined, no network. The tree, the entry panel and the context at any node all work
 * offline: the page's script holds core's tree and projection, and answers as /api/context does.
 *
 * @example
 * writeFileSync("session.html", renderHtmlExport({ header, entries, leafId }));
 */
export function renderHtmlExport(input: HtmlExportInput): string {
  const tree = new SessionTree();
  for (const entry of input.entries) tree.load(entry);
  const labels = input.labels ? toRecord(input.labels) : Object.fromEntries(tree.getLabels());
  const name = tree.getSessionName();
  const session = {
    key: "export",
    source: "export",
    header: input.header,
    entries: [...input.entries],
    leafId: input.leafId,
    labels,
    name,
    issues: tree.getIssues(),
  };
  return renderViewerDocument({ mode: "export", session }, `${name ?? input.header.id} — sessiontree`);
}

function toRecord(
  labels: ReadonlyMap<string, string> | Readonly<Record<string, string>>,
): Record<string, string> {
  return labels instanceof Map ? Object.fromEntries(labels) : { ...(labels as Record<string, string>) };
}
