import type { SessionEntry } from "../../core/entry.js";
import { isWellFormed } from "../../core/validate.js";
import { describeEntry, tokensBeforeText } from "../../format/describe.js";
import { clear, el } from "./dom.js";
import { messageView } from "./message-view.js";
import { childCount, labelOf, type Model, nodeLook } from "./model.js";
import { jumpLink, longText } from "./text-view.js";

/** The selected entry as the server (or the export's tree) sent it, with its subagent if any. */
export interface EntryBody {
  entry: SessionEntry;
  subagent?: string;
}

/** The panel's "Entry" part: what the selected entry is, where it sits, its content and raw JSON. */
export function renderEntry(
  box: HTMLElement,
  model: Model,
  v: number,
  body: EntryBody,
  onJump: (id: string) => void,
): void {
  clear(box);
  const e = body.entry;
  const head = el("div", "entry-head");
  head.appendChild(el("span", `dot kind-${nodeLook(model, v)}`));
  head.appendChild(el("strong", null, entryHeading(e)));
  box.appendChild(head);
  box.appendChild(badges(model, v));
  const facts = el("dl", "facts");
  fact(facts, "id", el("span", "mono", e.id)).id = "entry-id";
  fact(facts, "parent", e.parentId ? jumpLink(e.parentId, onJump) : el("span", "muted", "none (root)"));
  // Another writer's file may hold an entry with none, or one that is not text (a malformed entry).
  const time = e.timestamp as unknown;
  fact(facts, "time", typeof time === "string" ? el("span", null, time) : el("span", "muted", "not given"));
  box.appendChild(facts);
  box.appendChild(entryBody(body, onJump));
  const raw = el("details", "raw");
  raw.appendChild(el("summary", null, "raw JSON"));
  raw.appendChild(longText(JSON.stringify(e, null, 2), "pre"));
  box.appendChild(raw);
}

function badges(model: Model, v: number): HTMLDivElement {
  const box = el("div", "badges");
  box.id = "entry-badges";
  const onPath = model.onPath[v] === 1;
  const label = labelOf(model, v);
  const branches = childCount(model, v);
  if (v === model.leaf) box.appendChild(el("span", "badge leaf", "current leaf"));
  box.appendChild(
    el("span", onPath ? "badge path" : "badge abandoned", onPath ? "on the leaf's path" : "abandoned branch"),
  );
  if (label !== undefined) box.appendChild(el("span", "badge label", `label: ${label}`));
  if (branches > 1) box.appendChild(el("span", "badge", `${branches} branches`));
  return box;
}

function fact(dl: HTMLElement, name: string, valueNode: Node): HTMLElement {
  dl.appendChild(el("dt", null, name));
  const dd = el("dd");
  dd.appendChild(valueNode);
  dl.appendChild(dd);
  return dd;
}

function entryHeading(e: SessionEntry): string {
  if (e.type === "message") return `message · ${e.message?.role}`;
  return e.type === "custom" || e.type === "custom_message" ? `${e.type} · ${e.customType}` : e.type;
}

/** The readable content; other types say what describe.ts says of them, their text whole. */
function entryBody({ entry: e, subagent }: EntryBody, onJump: (id: string) => void): HTMLDivElement {
  const body = el("div", "entry-body");
  const withLink = (text: string, id: string) => {
    const line = el("div", "muted", text);
    line.appendChild(jumpLink(id, onJump));
    body.appendChild(line);
  };
  // A malformed entry (read from a file: core/validate.ts) is told by describe.ts, as an unknown one.
  const wellFormed = isWellFormed(e);
  if (e.type === "message") body.appendChild(messageView(e.message ?? {}, null));
  else if (e.type === "compaction" && wellFormed) {
    withLink(`${tokensBeforeText(e.tokensBefore)} tokens before · keeps from `, e.firstKeptEntryId);
    body.appendChild(longText(e.summary));
  } else if (e.type === "branch_summary" && wellFormed) {
    withLink("summary of the branch left at ", e.fromId);
    body.appendChild(longText(e.summary));
  } else if (e.type === "label" && wellFormed) {
    const line = el("div", null, e.label ? `sets label “${e.label}” on ` : "clears the label of ");
    line.appendChild(jumpLink(e.targetId, onJump));
    body.appendChild(line);
  } else {
    const { title, text } = describeEntry(e, { subagent });
    body.appendChild(el("div", "muted", title));
    if (text) body.appendChild(longText(text));
  }
  return body;
}
