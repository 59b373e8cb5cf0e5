import { after, before, describe } from "node:test";
import type { SessionStore } from "../../../src/store/store.js";
import { appendSpec } from "./append.spec.js";
import { branchSpec } from "./branch.spec.js";
import { branchSinceSpec } from "./branch-since.spec.js";
import { conflictsSpec } from "./conflicts.spec.js";
import { contextSpec } from "./context.spec.js";
import { createLoadSpec } from "./create-load.spec.js";
import { deleteSpec } from "./delete.spec.js";
import type { ConformanceTarget, SpecContext } from "./helpers.js";
import { isolationSpec } from "./isolation.spec.js";
import { largeSpec } from "./large.spec.js";
import { leafSpec } from "./leaf.spec.js";
import { limitsSpec } from "./limits.spec.js";
import { listSpec } from "./list.spec.js";
import { searchSpec } from "./search.spec.js";
import { transferSpec } from "./transfer.spec.js";
import { underLeafSpec } from "./under-leaf.spec.js";

export type { ConformanceTarget } from "./helpers.js";

const SPECS: Record<string, (ctx: SpecContext) => void> = {
  "create and load": createLoadSpec,
  "append and idempotency": appendSpec,
  conflicts: conflictsSpec,
  "append under the leaf": underLeafSpec,
  leaf: leafSpec,
  "branch read": branchSpec,
  "branch read since a known entry": branchSinceSpec,
  "list, paging and search": listSpec,
  "delete, restore, purge, retention": deleteSpec,
  "owner isolation": isolationSpec,
  "export and import": transferSpec,
  "large session": largeSpec,
  "context projection": contextSpec,
  "entry limits and work within a write": limitsSpec,
  "full-text search": searchSpec,
};

/**
 * The one suite every `SessionStore` backend passes. A backend's test file is a few lines:
 *
 * @example
 * runConformance({ name: "memory", create: async () => new MemoryStore(), capabilities: { persistent: false } });
 */
export function runConformance(target: ConformanceTarget): void {
  describe(`SessionStore conformance: ${target.name}`, () => {
    let store: SessionStore | undefined;
    const ctx: SpecContext = {
      target,
      store: () => {
        if (!store) throw new Error("the store is not open");
        return store;
      },
    };
    before(async () => {
      store = await target.create();
      await store.init();
      await store.init(); // init is idempotent
    });
    after(async () => {
      if (!store) return;
      if (target.destroy) await target.destroy(store);
      await store.close();
      await store.close();
    });
    for (const [title, spec] of Object.entries(SPECS)) describe(title, () => spec(ctx));
  });
}
