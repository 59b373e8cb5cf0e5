import { createContext, runInContext } from "node:vm";
import { CONTEXT_SCRIPT } from "../../../src/viewer/client/context-script.js";
import { LAYOUT_SCRIPT } from "../../../src/viewer/client/layout-script.js";
import { MODEL_SCRIPT } from "../../../src/viewer/client/model-script.js";

/** A node as the page's scripts index it (what the tests read of it). */
export interface ClientModel {
  n: number;
  entries: Array<{ id: string; type: string }>;
  indexOf: Map<string, number>;
  parent: Int32Array;
  children: number[][];
  roots: number[];
  leaf: number;
  onPath: Uint8Array;
}

export interface ClientLayout {
  count: number;
  nodeRow: Int32Array;
  maxCol: number;
  rows: {
    node: number[];
    run: number[];
    col: number[];
    parent: number[];
    lastChild: number[];
    hidden: number[];
  };
}

export interface LayoutState {
  collapsed: Set<number>;
  expandedRuns: Set<number>;
  foldRuns: boolean;
}

export interface ClientScripts {
  buildModel(session: {
    entries: unknown[];
    leafId: string | null;
    labels?: Record<string, string>;
  }): ClientModel;
  layoutTree(model: ClientModel, state: LayoutState): ClientLayout;
  localContextAt(model: ClientModel, v: number): unknown;
  nodeKind(model: ClientModel, v: number): string;
}

/**
 * The page's model, layout and context scripts, run in a fresh V8 context exactly as shipped
 * (the same strings the page inlines), so their logic is tested without a browser.
 */
export function loadClientScripts(): ClientScripts {
  // Wrapped in a function as the page wraps them: globals of a vm context are slow to reach.
  // Data crosses into the script's realm as JSON text, as it reaches the page: objects of another
  // realm would make every property access slow and the timings meaningless.
  const exported = `return {
    buildModel: function (session) { return buildModel(JSON.parse(JSON.stringify(session))); },
    layoutTree: function (model, s) {
      return layoutTree(model, { collapsed: new Set(s.collapsed), expandedRuns: new Set(s.expandedRuns), foldRuns: s.foldRuns });
    },
    localContextAt, nodeKind };`;
  const source = `(function () {\n${MODEL_SCRIPT}\n${LAYOUT_SCRIPT}\n${CONTEXT_SCRIPT}\n${exported}\n})()`;
  return runInContext(source, createContext({})) as ClientScripts;
}

/** A value from the script's realm as plain JSON, so deepEqual compares content, not prototypes. */
export function plain<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
