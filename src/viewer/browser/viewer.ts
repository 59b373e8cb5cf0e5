import type { SessionIssue } from "../../core/issues.js";
import type { ViewerBoot } from "../boot.js";
import type { MessagePage, SelectionAnswer } from "../context-at.js";
import type { SessionShape } from "../session-shape.js";
import { CONTEXT_SHOWN, renderContext } from "./context-panel.js";
import { byId, clear, el } from "./dom.js";
import { renderEntry } from "./entry-panel.js";
import { type Layout, type LayoutState, layoutTree } from "./layout.js";
import { childCount, firstChild, indexOfId, type Model, modelOfShape } from "./model.js";
import { createRenderer, type Renderer } from "./renderer.js";
import { loadTextsOnDemand, type TextFetcher } from "./text-pages.js";

/**
 * Where a click's answer comes from: the live viewer's `/api/context`, or the export's own tree
 * (the same function the server runs).
 */
export type Answerer = (key: string, entryId: string, page: MessagePage) => Promise<SelectionAnswer>;

/** A session's shape, with the answer for the node it opens at when the server sent it along. */
export type Opening = SessionShape & {
  start?: SelectionAnswer | null;
  /** Row texts of the nodes first drawn, when the shape left the texts out. */
  startTexts?: { from: number; texts: string[] } | null;
};

/** The session on screen: its index, what the user folded, and the rows that gives. */
export interface Shown {
  shape: SessionShape;
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
  readonly timings: Record<string, number | undefined> = {};
  readonly renderer: Renderer;
  /** Bumped by every context request: only the latest one's answer is shown. */
  private token = 0;
  /** Told of each selection (the service's panel actions show the entry's label). */
  onSelect: ((v: number) => void) | null = null;
  /** Told of each session opened (a reload too) and each selection: the stats and diff panels. */
  readonly watchers: Array<{ opened?(shape: SessionShape): void; selected?(v: number): void }> = [];
  /** The answer for the node a session opens at, asked for before the tree is laid out. */
  private early: { v: number; answer: Promise<SelectionAnswer> } | null = null;

  constructor(
    readonly boot: ViewerBoot,
    private readonly answer: Answerer,
    /** Row texts a large session's shape left out (the live viewer only). */
    private readonly fetchTexts: ((key: string) => TextFetcher) | null = null,
  ) {
    this.renderer = createRenderer(
      byId<HTMLCanvasElement>("tree"),
      (row) => this.onRowClick(row),
      (row) => this.onRowDoubleClick(row),
      (frame) => {
        if (frame.pending > 0 || !this.shown) return;
        this.timings.treeShownAt ??= frame.at;
        this.markPainted();
      },
    );
  }

  /**
   * The first useful paint of the session opened (the bench's figure): the tree drawn with the
   * texts of the rows in view, and the leaf's context shown, whichever came last.
   */
  private markPainted(): void {
    const { treeShownAt, contextShownAt } = this.timings;
    if (treeShownAt === undefined || contextShownAt === undefined) return;
    this.timings.firstPaintAt ??= Math.max(treeShownAt, contextShownAt);
  }

  openSession(opening: Opening): void {
    const t0 = performance.now();
    const { start: sent, startTexts, ...shape } = opening;
    const start = shape.leaf >= 0 ? shape.leaf : shape.ids.length - 1;
    const startId = shape.ids[start];
    // The panel's first answer: the one the server sent with the shape (the local viewer's), else
    // asked for now, while the tree is indexed and laid out.
    const answer =
      sent && sent.entryId === startId
        ? Promise.resolve(sent)
        : startId === undefined
          ? null
          : this.answer(shape.key, startId, { tail: CONTEXT_SHOWN });
    this.early = answer === null ? null : { v: start, answer };
    this.early?.answer.catch(() => {});
    const model = modelOfShape(shape);
    if (shape.texts === null && this.fetchTexts) {
      loadTextsOnDemand(model, this.fetchTexts(shape.key), () => this.renderer.redraw(), startTexts);
      // The rows first drawn are the leaf's: their texts are asked for now, not after the layout.
      if (start >= 0) model.wantText?.(start);
    }
    const state = {
      collapsed: new Set<number>(),
      expandedRuns: new Set<number>(),
      foldRuns: foldRunsChecked(),
    };
    this.timings.modelMs = performance.now() - t0;
    delete this.timings.firstPaintAt;
    delete this.timings.treeShownAt;
    delete this.timings.contextShownAt;
    this.selected = -1;
    this.renderer.resetView();
    this.shown = { shape, model, state, layout: this.layOut(model, state) };
    this.draw(this.shown);
    byId("session-title").textContent = shape.name || shape.firstPrompt || shape.header.id;
    byId("session-meta").textContent = `${model.n} entries · ${shape.header.cwd} · ${shape.source}`;
    renderIssues(shape.issues ?? []);
    for (const w of this.watchers) w.opened?.(shape);
    byId("empty").hidden = true;
    byId("workspace").hidden = false;
    this.showNoEntries(model.n === 0);
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
    const { header } = this.shown.shape;
    const later =
      this.boot.mode === "export" ? "" : "They appear as the agent writes them: press reload to read them.";
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
    // Only a row out of sight is brought to the middle: moving the rows under the pointer between
    // the clicks of a double-click would fold another row than the one clicked.
    if (center || !this.renderer.inView(row)) this.renderer.center(row);
    const id = this.entryId(v);
    if (this.boot.mode !== "export") {
      const hash = `#session=${encodeURIComponent(shown.shape.key)}&entry=${encodeURIComponent(id)}`;
      history.replaceState(null, "", hash);
    }
    this.onSelect?.(v);
    for (const w of this.watchers) w.selected?.(v);
    this.loadContext(v);
  }

  jumpTo(id: string): void {
    const v = this.nodeOf(id);
    if (v !== undefined) this.select(v, false);
  }

  nodeOf(id: string): number | undefined {
    return this.shown ? indexOfId(this.shown.model, id) : undefined;
  }

  entryId(v: number): string {
    return this.shown?.model.ids[v] ?? "";
  }

  toggleCollapse(v: number): void {
    const shown = this.shown;
    if (!shown || childCount(shown.model, v) === 0) return;
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
    if (run && delta < 0) for (let k = 1; k < run; k++) v = firstChild(model, v);
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
   * The entry and the context panel at node v: one answer (the entry, and the latest messages of
   * the context there; earlier ones a page at a time). Only the latest request's answer is shown.
   */
  private loadContext(v: number): void {
    const shown = this.shown;
    if (!shown) return;
    const token = ++this.token;
    const t0 = performance.now();
    const key = shown.shape.key;
    const id = this.entryId(v);
    byId("context").setAttribute("aria-busy", "true");
    const loadPage = (page: MessagePage) => this.answer(key, id, page);
    const early = this.early?.v === v ? this.early.answer : null;
    this.early = null;
    (early ?? loadPage({ tail: CONTEXT_SHOWN })).then(
      (answer) => {
        if (token !== this.token) return;
        this.timings.contextMs = performance.now() - t0;
        renderEntry(byId("entry"), shown.model, v, answer, (to) => this.jumpTo(to));
        const box = byId("context");
        const current = () => token === this.token;
        const rest = renderContext(box, answer, (to) => this.jumpTo(to), loadPage, current);
        box.setAttribute("data-entry-id", answer.entryId);
        // Since the page's time origin: the bench reads them against its inputs' timestamps.
        this.timings.contextShownAt = performance.now();
        this.markPainted();
        // Busy until every message of the page is there (the tests wait for that).
        rest.then(() => {
          if (current()) box.setAttribute("aria-busy", "false");
        });
      },
      (err: Error) => this.contextFailed(token, err),
    );
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
