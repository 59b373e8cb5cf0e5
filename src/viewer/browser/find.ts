/**
 * The search box: the text of every session (the local viewer's `/api/search`, the service's
 * `/v1/search`), hits listed best first; clicking one opens its session at that entry.
 */
import { SNIPPET_MARK } from "../../core/search-hit.js";
import type { ViewerSearchHit } from "../source.js";
import type { ViewerData } from "./data.js";
import { byId, clear, el } from "./dom.js";
import type { Viewer } from "./viewer.js";

export function installFind(data: ViewerData, viewer: Viewer): void {
  const input = byId<HTMLInputElement>("find");
  const box = byId("find-results");
  let asked = 0;
  const run = async () => {
    const query = input.value.trim();
    const mine = ++asked;
    clear(box);
    box.hidden = query === "";
    if (!query) return;
    box.setAttribute("aria-busy", "true");
    box.appendChild(el("div", "find-note", "Searching…"));
    let hits: ViewerSearchHit[] | null = null;
    let failure = "";
    try {
      hits = await data.search(query);
    } catch (err) {
      failure = (err as Error).message;
    }
    if (mine !== asked) return;
    clear(box);
    if (hits === null) box.appendChild(el("div", "find-note", `Search failed: ${failure}`));
    else if (hits.length === 0) box.appendChild(el("div", "find-note", "No entry holds all of these words."));
    else for (const hit of hits) box.appendChild(hitItem(hit, () => openHit(viewer, hit)));
    box.setAttribute("aria-busy", "false");
  };
  input.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter") void run();
  });
  input.addEventListener("search", () => {
    if (input.value === "") void run();
  });
}

/** The hit's entry: at once when its session is open, else through the address (list.route). */
function openHit(viewer: Viewer, hit: ViewerSearchHit): void {
  if (viewer.shown?.shape.key === hit.key && viewer.nodeOf(hit.entryId) !== undefined) {
    viewer.jumpTo(hit.entryId);
    return;
  }
  location.hash = `session=${encodeURIComponent(hit.key)}&entry=${encodeURIComponent(hit.entryId)}`;
}

function hitItem(hit: ViewerSearchHit, open: () => void): HTMLButtonElement {
  const item = el("button", "find-hit");
  item.setAttribute("data-key", hit.key);
  item.setAttribute("data-entry-id", hit.entryId);
  const where = `${hit.sessionName || hit.sessionId} · ${hit.kind}${hit.branch === "abandoned" ? " · abandoned branch" : ""}`;
  item.appendChild(el("div", "find-where", where));
  item.appendChild(snippet(hit.snippet));
  item.addEventListener("click", open);
  return item;
}

/** The snippet as text, its marked words in `<mark>`: session text only ever as textContent. */
function snippet(text: string): HTMLDivElement {
  const line = el("div", "find-snippet");
  let rest = text;
  for (let open = rest.indexOf(SNIPPET_MARK.open); open >= 0; open = rest.indexOf(SNIPPET_MARK.open)) {
    const close = rest.indexOf(SNIPPET_MARK.close, open + 1);
    if (close < 0) break;
    line.appendChild(document.createTextNode(rest.slice(0, open)));
    line.appendChild(el("mark", null, rest.slice(open + SNIPPET_MARK.open.length, close)));
    rest = rest.slice(close + SNIPPET_MARK.close.length);
  }
  line.appendChild(document.createTextNode(rest));
  return line;
}
