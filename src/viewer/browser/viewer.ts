import type { SessionIssue } from "../../core/issues.js";
import type { ViewerBoot } from "../boot.js";
import { contextInTree } from "../context-at.js";
import type { ViewerSession } from "../source.js";
import { CONTEXT_SHOWN, type PanelContext, renderContext } from "./context-panel.js";
import { api, byId, clear, el } from "./dom.js";
import { nodeLook, nodeText } from "./entry-line.js";
import { renderEntry } from "./entry-panel.js";
import { type Layout, type LayoutState, layoutTree } from "./layout.js";
import { buildModel, type Model } from "./model.js";
import { createRenderer, type Renderer } from "./renderer.js";

/** The session on screen: its index, what the user folded, and the rows that gives. */
export interface Shown {
  session: ViewerSession;
  model: Model;
  state: LayoutState;
  layout: Layout;
}

/** The page's state and what changes it: opening a session, selecting, folding. */
export class Viewer {
  shown: Shown | null = null;
  /** The selected node, -1 for none. */
  selected = -1;
  /** How long the last open, layout and context took (the large-session test reports them). */
  readonly timings: Record<string, number> = {};
  readonly renderer: Renderer;
  /** Bumped by every context request: only the latest one's answer is shown. */
  private token = 0;

  constructor(readonly boot: ViewerBoot) {
    this.renderer = createRenderer(
      byId<HTMLCanvasElement>("tree"),
      (row) => this.onRowClick(row),
      (row) => this.onRowDoubleClick(row),
    );
  }

  openSession(session: ViewerSession): void {
    const t0 = performance.now();
    const model = buildModel(session);
    const state = {
      collapsed: new Set<number>(),
      expandedRuns: new Set<number>(),
      foldRuns: foldRunsChecked(),
    };
    this.timings.modelMs = performance.now() - t0;
    this.selected = -1;
    this.renderer.resetView();
    this.shown = { session, model, state, layout: this.layOut(model, state) };
    this.draw(this.shown);
    byId("session-title").textContent = session.name || firstPrompt(model) || session.header.id;
    byId("session-meta").textContent = `${model.n} entries · ${session.header.cwd} · ${session.source}`;
    renderIssues(session.issues ?? []);
    byId("empty").hidden = true;
    byId("workspace").hidden = false;
    this.showNoEntries(model.n === 0);
    const start = model.leaf >= 0 ? model.leaf : model.n - 1;
    if (start >= 0) this.select(start, true);
    else {
      clear(byId("entry"));
      clear(byId("context"));
    }
  }

  /** A session with only its header (an agent just started it) says so instead of an empty canvas. */
  private showNoEntries(none: boolean): void {
    const box = byId("no-entries");
    box.hidden = !none;
    if (!none || !this.shown) return;
    const { header } = this.shown.session;
    const later =
      this.boot.mode === "server" ? "They appear as the agent writes them: press reload to read them." : "";
    box.textContent = `This session has no entries yet: only its header (started ${header.timestamp} in ${header.cwd}). ${later}`;
  }

  /** Lays the rows out again after a fold, an unfold or a change of "fold runs". */
  relayout(): void {
    const shown = this.shown;
    if (!shown) return;
    shown.layout = this.layOut(shown.model, shown.state);
    this.draw(shown);
  }

  private layOut(model: Model, state: LayoutState): Layout {
    const t0 = performance.now();
    const layout = layoutTree(model, state);
    this.timings.layoutMs = performance.now() - t0;
    return layout;
  }

  private draw(shown: Shown): void {
    this.renderer.setData(shown.model, shown.layout, this.selected);
    byId("stats").textContent = `${shown.layout.count} rows · ${shown.model.n} entries`;
  }

  /** Makes a node visible (opens collapsed ancestors, unfolds its run) and returns its row. */
  reveal(v: number): number {
    const shown = this.shown;
    if (!shown) return -1;
    const { model, state } = shown;
    let changed = false;
    for (let a = model.parent[v] as number; a >= 0; a = model.parent[a] as number) {
      if (state.collapsed.delete(a)) changed = true;
    }
    if (changed) this.relayout();
    const row = shown.layout.nodeRow[v] as number;
    if (row >= 0 && shown.layout.rows.run[row]) {
      state.expandedRuns.add(shown.layout.rows.node[row] as number);
      this.relayout();
    }
    return shown.layout.nodeRow[v] as number;
  }

  select(v: number, center: boolean): void {
    const shown = this.shown;
    if (!shown || v < 0 || v >= shown.model.n) return;
    const row = this.reveal(v);
    this.selected = v;
    this.renderer.setSelected(v);
    const frame = this.renderer.view.frame;
    if (center || !frame || row < frame.from + 1 || row > frame.to - 1) this.renderer.center(row);
    const id = this.entryId(v);
    renderEntry(byId("entry"), shown.model, v, (to) => this.jumpTo(to));
    if (this.boot.mode === "server") {
      const hash = `#session=${encodeURIComponent(shown.session.key)}&entry=${encodeURIComponent(id)}`;
      history.replaceState(null, "", hash);
    }
    this.loadContext(v);
  }

  jumpTo(id: string): void {
    const v = this.shown?.model.indexOf.get(id);
    if (v !== undefined) this.select(v, false);
  }

  entryId(v: number): string {
    return this.shown?.model.entries[v]?.id ?? "";
  }

  toggleCollapse(v: number): void {
    const shown = this.shown;
    if (!shown || shown.model.children[v]?.length === 0) return;
    if (!shown.state.collapsed.delete(v)) shown.state.collapsed.add(v);
    this.relayout();
  }

  /** Moves the selection `delta` rows up or down. */
  moveSelection(delta: number): void {
    const shown = this.shown;
    if (!shown || this.selected < 0) return;
    const { layout, model } = shown;
    const row = (layout.nodeRow[this.selected] as number) + delta;
    if (row < 0 || row >= layout.count) return;
    let v = layout.rows.node[row] as number;
    const run = layout.rows.run[row] as number;
    // Moving up into a run lands on its last entry, next to where we came from.
    if (run && delta < 0) for (let k = 1; k < run; k++) v = model.children[v]?.[0] as number;
    this.select(v, false);
  }

  private onRowClick(row: number): void {
    const shown = this.shown;
    if (!shown || row < 0) return;
    const v = shown.layout.rows.node[row] as number;
    if (shown.layout.rows.run[row]) {
      shown.state.expandedRuns.add(v);
      this.relayout();
    }
    this.select(v, false);
  }

  private onRowDoubleClick(row: number): void {
    const shown = this.shown;
    if (!shown || row < 0 || shown.layout.rows.run[row]) return;
    this.toggleCollapse(shown.layout.rows.node[row] as number);
  }

  /**
   * The context panel at node v. The export computes it here with core's projection (the server's
   * own function); the live viewer asks for the latest messages only, the rest on request.
   */
  private loadContext(v: number): void {
    const shown = this.shown;
    if (!shown) return;
    const token = ++this.token;
    const t0 = performance.now();
    byId("context").setAttribute("aria-busy", "true");
    const done = (ctx: PanelContext, loadAll?: () => void) => {
      this.timings.contextMs = performance.now() - t0;
      this.showContext(token, ctx, loadAll);
    };
    if (this.boot.mode === "export") {
      done(contextInTree(shown.model.tree, this.entryId(v)));
      return;
    }
    const key = encodeURIComponent(shown.session.key);
    const url = `api/context?key=${key}&at=${encodeURIComponent(this.entryId(v))}`;
    const failed = (err: Error) => this.contextFailed(token, err);
    const loadAll = () => {
      byId("context").setAttribute("aria-busy", "true");
      api<PanelContext>(url).then((ctx) => done({ ...ctx, showAll: true }), failed);
    };
    api<PanelContext>(`${url}&tail=${CONTEXT_SHOWN}`).then((ctx) => done(ctx, loadAll), failed);
  }

  /** Shows an answer, unless a later request was made since (`token`). */
  private showContext(token: number, ctx: PanelContext, loadAll?: () => void): void {
    if (token !== this.token) return;
    const box = byId("context");
    renderContext(box, ctx, (id) => this.jumpTo(id), loadAll);
    box.setAttribute("aria-busy", "false");
    box.setAttribute("data-entry-id", ctx.entryId);
  }

  private contextFailed(token: number, err: Error): void {
    if (token !== this.token) return;
    const box = byId("context");
    clear(box);
    const hint = "(if the file changed since it was opened, press reload)";
    box.appendChild(el("div", "warning", `Could not load the context: ${err.message} ${hint}`));
    box.setAttribute("aria-busy", "false");
  }
}

function foldRunsChecked(): boolean {
  return byId<HTMLInputElement>("fold-runs").checked;
}

function firstPrompt(model: Model): string {
  for (let v = 0; v < model.n; v++) if (nodeLook(model, v) === "user") return nodeText(model, v).slice(0, 80);
  return "";
}

function renderIssues(issues: SessionIssue[]): void {
  const box = byId("issues");
  clear(box);
  box.hidden = issues.length === 0;
  if (issues.length === 0) return;
  const details = el("details");
  details.appendChild(el("summary", null, `${issues.length} problem(s) reading this session`));
  for (const i of issues) {
    const where = i.line ? ` · line ${i.line}` : "";
    details.appendChild(el("div", "issue", `${i.severity} · ${i.code}${where} · ${i.message}`));
  }
  box.appendChild(details);
}
