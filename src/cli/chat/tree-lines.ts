import pc from "picocolors";
import type { SessionEntry } from "../../core/entry.js";
import { NotFoundError, ValidationError } from "../../core/errors.js";
import { messageText } from "../../core/messages.js";
import type { SessionTreeNode } from "../../core/tree.js";
import { isWellFormed } from "../../core/validate.js";
import type { SessionManager } from "../../session/session-manager.js";
import { terminalSafe } from "../terminal-text.js";

/** An entry id from a full id or a unique prefix. */
export function resolveEntry(manager: SessionManager, ref: string | undefined): string {
  if (!ref) throw new ValidationError("invalid_argument", "Give an entry id (see /tree)");
  if (manager.getEntry(ref)) return ref;
  const matches = manager.getEntries().filter((e) => e.id.startsWith(ref));
  if (matches.length === 1) return (matches[0] as SessionEntry).id;
  throw new NotFoundError("entry_not_found", matches.length ? `"${ref}" is ambiguous` : `No entry ${ref}`);
}

/** The tree, one entry a line; indentation grows only where the tree branches. `*` marks the leaf. */
export function treeLines(roots: readonly SessionTreeNode[], leafId: string | null): string[] {
  const lines: string[] = [];
  const stack = [...roots].reverse().map((node) => ({ node, depth: 0 }));
  while (stack.length > 0) {
    const { node, depth } = stack.pop() as { node: SessionTreeNode; depth: number };
    const marker = node.entry.id === leafId ? "*" : " ";
    const label = node.label ? pc.green(terminalSafe(` [${node.label}]`)) : "";
    const line = `${"  ".repeat(depth)}${node.entry.id}`;
    lines.push(`${marker} ${terminalSafe(line)}${label} ${terminalSafe(describe(node.entry))}`);
    const childDepth = node.children.length > 1 ? depth + 1 : depth;
    for (const child of [...node.children].reverse()) stack.push({ node: child, depth: childDepth });
  }
  return lines;
}

function describe(entry: SessionEntry): string {
  if (!isWellFormed(entry)) return entry.type;
  if (entry.type === "message") {
    const m = entry.message as { role: string; content?: unknown; stopReason?: string };
    const text = messageText(m).replace(/\s+/g, " ").slice(0, 60);
    return `${m.role}${m.stopReason === "aborted" || m.stopReason === "error" ? ` (${m.stopReason})` : ""}: ${text}`;
  }
  if (entry.type === "compaction" || entry.type === "branch_summary")
    return `${entry.type}: ${entry.summary.replace(/\s+/g, " ").slice(0, 50)}`;
  if (entry.type === "model_change") return `model → ${entry.provider}/${entry.modelId}`;
  if (entry.type === "thinking_level_change") return `thinking → ${entry.thinkingLevel}`;
  return entry.type;
}
