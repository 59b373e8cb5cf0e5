import { el } from "./dom.js";

/** Characters of a long text shown before "show all". */
const TEXT_SHOWN = 1200;

/** Long text folds after TEXT_SHOWN characters behind a "show all" toggle. */
export function longText(text: unknown, className = "text"): HTMLDivElement {
  const box = el("div", className);
  const s = String(text);
  box.textContent = s.length > TEXT_SHOWN ? `${s.slice(0, TEXT_SHOWN)}…` : s;
  if (s.length > TEXT_SHOWN) {
    const more = el("button", "link", `show all ${s.length} characters`);
    more.addEventListener("click", () => {
      box.textContent = s;
    });
    box.appendChild(document.createElement("br"));
    box.appendChild(more);
  }
  return box;
}

/** An entry id that selects that entry when clicked. */
export function jumpLink(id: string, onJump: (id: string) => void): HTMLButtonElement {
  const a = el("button", "link mono", id);
  a.addEventListener("click", () => onJump(id));
  return a;
}
