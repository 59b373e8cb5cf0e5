import type { SessionEntry } from "./entry.js";
import type { SessionIssue } from "./issues.js";

export interface StructureReport {
  issues: SessionIssue[];
  /** One entry per parent cycle, to be treated as a root so walks end. */
  cycleCuts: Set<string>;
  /** Parent ids that no entry has. */
  danglingParents: Set<string>;
}

const UNSEEN = 0;
const ON_PATH = 1;
const DONE = 2;

/**
 * Finds dangling parents and parent cycles in one O(n) pass without recursion: each entry's
 * parent chain is walked once; meeting an entry that is still on the current walk closes a cycle.
 */
export function analyzeStructure(
  entryById: (id: string) => SessionEntry | undefined,
  order: readonly SessionEntry[],
): StructureReport {
  const issues: SessionIssue[] = [];
  const cycleCuts = new Set<string>();
  const danglingParents = new Set<string>();
  const state = new Map<string, number>();
  const position = new Map<string, number>();
  order.forEach((entry, index) => {
    if (!position.has(entry.id)) position.set(entry.id, index);
  });

  for (const start of order) {
    if ((state.get(start.id) ?? UNSEEN) !== UNSEEN) continue;
    const walk: SessionEntry[] = [];
    let current: SessionEntry | undefined = start;
    while (current && (state.get(current.id) ?? UNSEEN) === UNSEEN) {
      state.set(current.id, ON_PATH);
      walk.push(current);
      if (current.parentId === null) {
        current = undefined; // reached a root: the walk ended, it did not loop
        break;
      }
      const parent = entryById(current.parentId);
      if (!parent) {
        danglingParents.add(current.parentId);
        issues.push({
          code: "dangling_parent",
          severity: "warning",
          message: `Entry ${current.id} names parent ${current.parentId}, which does not exist; shown as a root`,
          entryId: current.id,
        });
      }
      current = parent;
    }
    if (current && state.get(current.id) === ON_PATH) {
      const cycle = walk.slice(walk.indexOf(current));
      const cut = cycle.reduce((a, b) => ((position.get(a.id) ?? 0) <= (position.get(b.id) ?? 0) ? a : b));
      cycleCuts.add(cut.id);
      issues.push({
        code: "parent_cycle",
        severity: "error",
        message: `Parent cycle through ${cycle.map((e) => e.id).join(" → ")}; ${cut.id} is treated as a root`,
        entryId: cut.id,
      });
    }
    for (const entry of walk) state.set(entry.id, DONE);
  }
  return { issues, cycleCuts, danglingParents };
}
