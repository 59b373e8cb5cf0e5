import { tokensBeforeText } from "../../format/describe.js";
import { el } from "./dom.js";
import { longText } from "./text-view.js";

/** A message as stored: pi's roles, or any other an extension writes. Fields are read defensively. */
type AnyMessage = { role?: unknown; [key: string]: unknown };
type Block = Record<string, unknown>;

/** One message as the model gets it: role, text, thinking, tool calls and results. */
export function messageView(m: AnyMessage, entryId: string | null): HTMLDivElement {
  const box = el("div", `msg role-${String(m.role)}`);
  box.setAttribute("data-role", String(m.role));
  if (entryId) box.setAttribute("data-entry-id", entryId);
  box.appendChild(el("div", "role", roleTitle(m)));
  if (m.role === "compactionSummary" || m.role === "branchSummary") box.appendChild(longText(m.summary));
  else if (m.role === "bashExecution") box.appendChild(longText(`$ ${m.command}\n${m.output || ""}`, "pre"));
  else if (typeof m.content === "string") box.appendChild(longText(m.content));
  else if (Array.isArray(m.content)) for (const b of m.content) box.appendChild(blockView(b));
  if (m.errorMessage) box.appendChild(el("div", "error-text", String(m.errorMessage)));
  return box;
}

function roleTitle(m: AnyMessage): string {
  if (m.role === "assistant")
    return `assistant · ${m.provider}/${m.model}${m.stopReason ? ` · ${m.stopReason}` : ""}`;
  if (m.role === "toolResult") return `tool result · ${m.toolName}${m.isError ? " · error" : ""}`;
  if (m.role === "compactionSummary")
    return `compaction summary · ${tokensBeforeText(m.tokensBefore)} tokens before`;
  if (m.role === "branchSummary") return `branch summary · from ${m.fromId}`;
  if (m.role === "custom") return `custom · ${m.customType}`;
  return String(m.role);
}

function blockView(block: unknown): HTMLElement {
  if (!block || typeof block !== "object") return el("div", "muted", String(block));
  const b = block as Block;
  if (b.type === "text") return longText(b.text);
  if (b.type === "image") return el("div", "muted", `[image ${b.mimeType || ""}]`);
  if (b.type === "thinking") {
    const d = el("details", "thinking");
    d.appendChild(el("summary", null, "thinking"));
    d.appendChild(longText(b.thinking));
    return d;
  }
  if (b.type === "toolCall") {
    const call = el("div", "toolcall");
    call.appendChild(el("div", "mono", `→ ${b.name}`));
    // Another tool's file may leave `arguments` out: shown as none, as `show` and the export do.
    call.appendChild(longText(JSON.stringify(b.arguments ?? {}, null, 2), "pre"));
    return call;
  }
  return longText(JSON.stringify(b, null, 2), "pre");
}
