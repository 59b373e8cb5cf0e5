/**
 * The branch diff panel (`sessiontree diff`): where the branches to two entries part (their last
 * common entry) and what each has after it — its entries one line each (click to go there), its
 * tool calls by tool with failures, the files its write/edit tools touched, what it used — and the
 * files both wrote.
 */
import type { DiffEntry, DiffSide } from "../../format/branch-diff.js";
import type { EntryKind } from "../../format/describe.js";
import type { BranchDiffAnswer } from "../session-insights.js";
import { clear, el } from "./dom.js";
import type { Look } from "./entry-line.js";
import { int, plural, relativeTo, unknownNotes, usageLine } from "./insight-format.js";
import { jumpLink } from "./text-view.js";

/** Entries of a side shown before "show all": the first ones and the last ones. */
const HEAD_SHOWN = 25;
const TAIL_SHOWN = 10;
/** Characters of an entry's text put in its line (the stylesheet cuts it to the panel's width). */
const LINE_CHARS = 300;

export function renderDiff(
  box: HTMLElement,
  diff: BranchDiffAnswer,
  cwd: string,
  onJump: (id: string) => void,
): void {
  clear(box);
  box.appendChild(partingLine(diff, onJump));
  box.appendChild(sideBox("A", diff.a, diff.leafId, cwd, onJump));
  box.appendChild(sideBox("B", diff.b, diff.leafId, cwd, onJump));
  if (diff.filesInBoth.length > 0) {
    const both = el("div", "insight-line", "Files written on both branches: ");
    both.id = "diff-files-both";
    both.appendChild(el("span", "mono", diff.filesInBoth.map((path) => relativeTo(cwd, path)).join(", ")));
    box.appendChild(both);
  }
}

function partingLine(diff: BranchDiffAnswer, onJump: (id: string) => void): HTMLElement {
  const line = el("div", "diff-parting");
  line.id = "diff-parting";
  const { ancestor, a, b } = diff;
  if (ancestor === null) {
    line.textContent = "The two entries share no ancestor: they are in separate trees.";
    return line;
  }
  if (a.targetId === b.targetId) {
    line.textContent = "A and B are the same entry: nothing differs.";
    return line;
  }
  const where =
    a.entries.length === 0 ? " (A is on B's path)" : b.entries.length === 0 ? " (B is on A's path)" : "";
  line.appendChild(document.createTextNode("The branches part after "));
  line.appendChild(jumpLink(ancestor.id, onJump));
  line.appendChild(document.createTextNode(`${where}: `));
  line.appendChild(el("span", "muted", `${ancestor.tag} ${ancestor.text}`));
  return line;
}

function sideBox(
  name: "A" | "B",
  side: DiffSide,
  leafId: string | null,
  cwd: string,
  onJump: (id: string) => void,
): HTMLElement {
  const box = el("section", "diff-side");
  box.dataset.side = name.toLowerCase();
  const head = el("div", "diff-side-head");
  head.appendChild(el("strong", null, `${name} `));
  head.appendChild(jumpLink(side.targetId, onJump));
  const where = side.targetId === leafId ? "the leaf" : side.onLeafPath ? "on the leaf's path" : "abandoned";
  head.appendChild(el("span", side.onLeafPath ? "badge path" : "badge abandoned", where));
  box.appendChild(head);
  const summary = [
    `${plural(side.entries.length, "entry", "entries")} after`,
    plural(side.toolCalls.length, "tool call", "tool calls"),
    `${plural(side.files.length, "file", "files")} written`,
    usageLine(side.usage),
  ];
  box.appendChild(el("div", "muted diff-summary", summary.join(" · ")));
  for (const note of unknownNotes(side.usage)) box.appendChild(el("div", "muted", note));
  if (side.entries.length > 0) box.appendChild(entryList(side.entries, onJump));
  if (side.toolCalls.length > 0) box.appendChild(el("div", "diff-tools", `tools: ${toolSummary(side)}`));
  if (side.files.length > 0) {
    const files = el("ul", "diff-files");
    for (const f of side.files) {
      const how = `${f.tools.join("/")}${f.calls > 1 ? ` ×${f.calls}` : ""}${f.errors > 0 ? `, ${f.errors} failed` : ""}`;
      const item = el("li");
      item.appendChild(el("span", "mono", relativeTo(cwd, f.path)));
      item.appendChild(el("span", f.errors > 0 ? "error-text" : "muted", ` (${how})`));
      files.appendChild(item);
    }
    box.appendChild(files);
  }
  return box;
}

/** "bash ×3 · edit ×2 (1 failed, 1 without result)", most calls first. */
function toolSummary(side: DiffSide): string {
  const tools = new Map<string, { calls: number; errors: number; open: number }>();
  for (const call of side.toolCalls) {
    const row = tools.get(call.name) ?? { calls: 0, errors: 0, open: 0 };
    tools.set(call.name, row);
    row.calls++;
    if (call.result === "error") row.errors++;
    if (call.result === null) row.open++;
  }
  return [...tools]
    .sort((x, y) => y[1].calls - x[1].calls || x[0].localeCompare(y[0]))
    .map(([name, row]) => {
      const notes = [
        row.errors > 0 ? `${int(row.errors)} failed` : "",
        row.open > 0 ? `${int(row.open)} without result` : "",
      ];
      const note = notes.filter(Boolean).join(", ");
      return `${name} ×${int(row.calls)}${note ? ` (${note})` : ""}`;
    })
    .join(" · ");
}

/** One line per entry; a long side shows its first and last ones and a button for the rest. */
function entryList(entries: DiffEntry[], onJump: (id: string) => void): HTMLElement {
  const list = el("ol", "diff-entries");
  const add = (from: number, to: number, before: Node | null) => {
    for (let i = from; i < to; i++) list.insertBefore(entryItem(entries[i] as DiffEntry, onJump), before);
  };
  if (entries.length <= HEAD_SHOWN + TAIL_SHOWN + 1) {
    add(0, entries.length, null);
    return list;
  }
  add(0, HEAD_SHOWN, null);
  const hidden = entries.length - HEAD_SHOWN - TAIL_SHOWN;
  const more = el("li", "diff-more");
  const button = el("button", "link", `show the ${int(hidden)} entries between`);
  button.addEventListener("click", () => {
    add(HEAD_SHOWN, entries.length - TAIL_SHOWN, more);
    more.remove();
  });
  more.appendChild(button);
  list.appendChild(more);
  add(entries.length - TAIL_SHOWN, entries.length, null);
  return list;
}

function entryItem(entry: DiffEntry, onJump: (id: string) => void): HTMLLIElement {
  const item = el("li", "diff-entry");
  item.dataset.entryId = entry.id;
  const button = el("button", "diff-entry-line");
  button.title = entry.id;
  button.appendChild(el("span", `dot kind-${LOOK_OF[entry.kind]}`));
  button.appendChild(el("span", "diff-tag", ` ${entry.tag} `));
  button.appendChild(el("span", null, entry.text.slice(0, LINE_CHARS).replace(/\s+/g, " ")));
  button.addEventListener("click", () => onJump(entry.id));
  item.appendChild(button);
  return item;
}

/** The dot colour the tree gives each kind of entry (the stylesheet's `kind-*`, entry-line.ts's looks). */
const LOOK_OF: { readonly [K in EntryKind]: Look } = {
  user: "user",
  assistant: "assistant",
  toolResult: "tool",
  error: "error",
  message: "other",
  compaction: "compaction",
  branchSummary: "branchSummary",
  customMessage: "customMessage",
  setting: "meta",
  label: "label",
  name: "meta",
  custom: "custom",
  other: "other",
};
