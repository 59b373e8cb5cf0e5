/**
 * The live viewer's start: the session list (grouped by source, filterable), the session named in
 * the URL hash, reload. The single-file export has none of this: it opens its inlined session.
 * The data comes from the local viewer's routes or the service's API (data.ts).
 */

import type { ViewerOrigin, ViewerSessionSummary } from "../source.js";
import type { ViewerData } from "./data.js";
import { byId, clear, el } from "./dom.js";
import type { ViewerHooks } from "./test-hooks.js";
import type { Opening, Viewer } from "./viewer.js";

export class SessionList {
  private sessions: ViewerSessionSummary[] = [];
  private origins: ViewerOrigin[] = [];
  /** The shape asked for at start, for the session the address names. */
  private prefetched: { key: string; shape: Promise<Opening> } | null = null;
  /** The session being opened, so that routing asks for it once. */
  private opening: { key: string; done: Promise<void> } | null = null;

  constructor(
    private readonly viewer: Viewer,
    private readonly data: ViewerData,
  ) {}

  /** Lists the sessions, opens the one in the hash (or the newest), and wires search and reload. */
  start(hooks: ViewerHooks): void {
    // A link to a session: open it now, while the list is read, not after (listing sessions the
    // catalog does not know yet reads them whole, which takes seconds for a large one).
    const linked = new URLSearchParams(location.hash.slice(1)).get("session");
    if (linked) {
      this.prefetched = { key: linked, shape: this.data.shape(linked) };
      this.prefetched.shape.catch(() => {});
      void this.show(linked);
    }
    this.load()
      .then(() => {
        window.addEventListener("hashchange", () => this.route());
        return this.route();
      })
      .then(
        () => {
          hooks.ready = true;
        },
        (err: Error) => {
          byId("empty").hidden = false;
          byId("empty").textContent = `The viewer could not list sessions: ${err.message}`;
          hooks.ready = true;
        },
      );
    byId("search").addEventListener("input", () => this.render());
    byId("reload").addEventListener("click", () => {
      this.refresh().catch((err: Error) => {
        byId("session-title").textContent = `Could not read the sessions again: ${err.message}`;
      });
    });
  }

  show(key: string): Promise<void> {
    if (this.opening?.key === key) return this.opening.done;
    const done = this.open(key).finally(() => {
      if (this.opening?.done === done) this.opening = null;
    });
    this.opening = { key, done };
    return done;
  }

  private async open(key: string): Promise<void> {
    byId("workspace").hidden = false;
    byId("session-title").textContent = "Loading…";
    this.markActive(key);
    // Read before opening: selecting the leaf rewrites the hash.
    const link = new URLSearchParams(location.hash.slice(1));
    const wanted = link.get("session") === key ? link.get("entry") : null;
    let shape: Opening;
    const early = this.prefetched?.key === key ? this.prefetched.shape : null;
    this.prefetched = null;
    try {
      shape = await (early ?? this.data.shape(key));
    } catch (err) {
      byId("session-title").textContent = `Could not open this session: ${(err as Error).message}`;
      return;
    }
    this.viewer.timings.shapeAt = performance.now();
    this.viewer.openSession(shape);
    this.viewer.timings.openedAt = performance.now();
    if (wanted) this.viewer.jumpTo(wanted);
  }

  private async load(): Promise<void> {
    const [origins, sessions] = await Promise.all([this.data.origins(), this.data.sessions()]);
    // Drawn after the session being opened: the tree and its context come first (formatting the
    // first date loads the locale's data, tens of milliseconds on the way to the first paint).
    await this.opening?.done.catch(() => {});
    this.origins = origins;
    this.sessions = sessions;
    this.render();
    const open = this.opening?.key ?? this.viewer.shown?.shape.key;
    if (open !== undefined) this.markActive(open);
    document.body.classList.toggle("no-session", this.sessions.length === 0);
    if (this.sessions.length === 0) this.renderEmpty();
  }

  private route(): Promise<void> {
    const link = new URLSearchParams(location.hash.slice(1));
    const key = link.get("session");
    const open = this.viewer.shown?.shape.key;
    if (key && open !== key) return this.show(key);
    // A link to another entry of the open session (a search hit) selects it.
    const entry = link.get("entry");
    if (key && entry && entry !== this.viewer.entryId(this.viewer.selected)) this.viewer.jumpTo(entry);
    const newest = this.sessions[0];
    if (!newest || key || open !== undefined) return Promise.resolve();
    history.replaceState(null, "", `#session=${encodeURIComponent(newest.key)}`);
    return this.show(newest.key);
  }

  /**
   * Sessions grow while an agent runs (and change by the page's own writes): re-read the list and
   * the open session, keeping the selection (or selecting `keep`).
   */
  async refresh(keep?: string): Promise<void> {
    const viewer = this.viewer;
    const selected = keep ?? (viewer.selected >= 0 ? viewer.entryId(viewer.selected) : null);
    await this.load();
    const open = viewer.shown?.shape.key;
    if (open === undefined || this.sessions.length === 0) return this.route();
    viewer.openSession(await this.data.shape(open));
    if (selected) viewer.jumpTo(selected);
    this.markActive(open);
  }

  private render(): void {
    const box = byId("session-list");
    const filter = byId<HTMLInputElement>("search").value.trim().toLowerCase();
    clear(box);
    const shown = this.sessions.filter(
      (s) => !filter || [s.name, s.firstMessage, s.cwd, s.id].join(" ").toLowerCase().includes(filter),
    );
    for (const origin of this.origins) {
      const mine = shown.filter((s) => s.source === origin.source);
      const group = el("div", "group");
      group.appendChild(el("div", "group-title", `${origin.source} · ${mine.length}`));
      group.appendChild(el("div", "group-location mono", origin.location));
      for (const s of mine) group.appendChild(sessionItem(s));
      box.appendChild(group);
    }
  }

  private renderEmpty(): void {
    byId("workspace").hidden = true;
    const box = byId("empty");
    box.hidden = false;
    clear(box);
    box.appendChild(el("h2", null, "No sessions found"));
    box.appendChild(el("p", null, "The viewer looked in these places:"));
    const list = el("ul");
    for (const o of this.origins) {
      const state = o.exists ? " (no session files there)" : " (does not exist)";
      list.appendChild(el("li", null, `${o.source}: ${o.location}${state}`));
    }
    box.appendChild(list);
    for (const hint of this.data.emptyHints) box.appendChild(el("p", null, hint));
  }

  private markActive(key: string): void {
    document.querySelectorAll(".session-item").forEach((item) => {
      item.classList.toggle("active", item.getAttribute("data-key") === key);
    });
  }
}

function sessionItem(s: ViewerSessionSummary): HTMLButtonElement {
  const item = el("button", "session-item");
  item.setAttribute("data-key", s.key);
  item.setAttribute("data-session-id", s.id);
  item.appendChild(el("div", "session-name", s.name || s.firstMessage || s.id));
  const meta = `${s.messageCount} messages · ${new Date(s.modifiedAt).toLocaleString()} · ${s.cwd}`;
  item.appendChild(el("div", "session-meta", meta));
  item.title = s.location;
  item.addEventListener("click", () => {
    location.hash = `session=${encodeURIComponent(s.key)}`;
  });
  return item;
}
