import type { SessionEntry, SessionHeader } from "../core/entry.js";
import type { AgentMessage } from "../core/messages.js";
import { isWellFormed } from "../core/validate.js";
import { type DescribeContext, describeEntry, subagentNames } from "./describe.js";

export interface MarkdownExportInput {
  header: SessionHeader;
  /** The path to export, root first (usually the leaf's branch). */
  path: readonly SessionEntry[];
  name?: string;
  labels?: ReadonlyMap<string, string>;
}

/**
 * One branch of a session as a readable Markdown transcript: every entry on the path in order,
 * messages with their text, tool calls with their arguments, summaries and setting changes as notes.
 * Entry ids are kept as HTML comments so a reader can find an entry again with `--at`.
 */
export function exportMarkdown(input: MarkdownExportInput): string {
  const { header, path, labels } = input;
  const lines: string[] = [`# ${input.name ?? `Session ${header.id}`}`, ""];
  lines.push(`- Session: \`${header.id}\``, `- Started: ${header.timestamp}`);
  if (header.cwd) lines.push(`- Directory: \`${header.cwd}\``);
  lines.push(`- Entries on this branch: ${path.length}`, "");
  const subagents = subagentNames(path);
  for (const entry of path) {
    const label = labels?.get(entry.id);
    lines.push(`<!-- entry ${entry.id} -->`);
    if (label) lines.push(`> **Label:** ${label}`, "");
    lines.push(...entryMarkdown(entry, { subagent: subagents.get(entry.id) }), "");
  }
  return `${lines.join("\n").trimEnd()}\n`;
}

/** The entry's heading (or, for a setting, label or name, its one-line note) and its body. */
function entryMarkdown(entry: SessionEntry, context: DescribeContext): string[] {
  const { title } = describeEntry(entry, context);
  if (!isWellFormed(entry)) return [`*${title}*`];
  switch (entry.type) {
    case "message":
      return messageMarkdown(entry.message as AgentMessage, title);
    case "compaction":
    case "branch_summary":
      return [`## ${title}`, "", entry.summary];
    case "custom_message":
      return [`## ${title}`, "", contentText(entry.content)];
    default:
      return [`*${title}*`];
  }
}

function messageMarkdown(message: AgentMessage, title: string): string[] {
  const m = message as unknown as Record<string, unknown>;
  switch (message.role) {
    case "user":
      return [`## ${title}`, "", contentText(m.content)];
    case "assistant": {
      const out = [`## ${title}`, ""];
      for (const block of Array.isArray(m.content) ? (m.content as Array<Record<string, unknown>>) : []) {
        if (block.type === "text") out.push(String(block.text), "");
        else if (block.type === "thinking") out.push(thinkingMarkdown(block), "");
        // A writer other than pi may leave `arguments` out for a tool that takes none: shown as
        // `{}`, as `show` shows it.
        else if (block.type === "toolCall")
          out.push(`**Tool call** \`${String(block.name)}\``, fence(block.arguments ?? {}), "");
      }
      if (typeof m.errorMessage === "string") out.push(`**Error:** ${m.errorMessage}`);
      return out;
    }
    case "toolResult":
      return [`### ${title}`, "", fence(contentText(m.content))];
    default:
      return [`## ${title}`, "", contentText(m.content ?? m.summary ?? m.output ?? m.command)];
  }
}

/** The text of string or block content; images and other blocks are named, not dropped. */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return content === undefined ? "" : String(content);
  return content
    .map((block: Record<string, unknown>) => {
      if (block.type === "text") return String(block.text);
      if (block.type === "image") return `[image ${String(block.mimeType ?? "")}]`;
      return `[${String(block.type)}]`;
    })
    .join("\n");
}

/**
 * A thinking block as a folded `<details>` section titled "Thinking": marked as reasoning in any
 * renderer, and in the raw text too. The body is a quote; a `<details>` tag the model wrote is
 * escaped, so it cannot close the section early.
 */
function thinkingMarkdown(block: Record<string, unknown>): string {
  if (block.redacted === true) return "<details><summary>Thinking (redacted)</summary></details>";
  const text = typeof block.thinking === "string" ? block.thinking : "";
  const body = quote(text.replace(/<(\/?details)/gi, "&lt;$1"));
  return ["<details>", "<summary>Thinking</summary>", "", body, "", "</details>"].join("\n");
}

function quote(text: string): string {
  return text
    .split("\n")
    .map((line) => `> ${line}`)
    .join("\n");
}

function fence(value: unknown): string {
  const text = typeof value === "string" ? value : JSON.stringify(value, null, 2);
  const ticks = text.includes("```") ? "````" : "```";
  return `${ticks}\n${text}\n${ticks}`;
}
