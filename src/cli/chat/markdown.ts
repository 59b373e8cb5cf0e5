import pc from "picocolors";

/**
 * A small Markdown renderer for the terminal, line by line so a streamed reply can be shown as it
 * arrives: headings, bold, italics, inline code, links, lists, quotes, rules and fenced code
 * blocks. The markers go; the structure stays visible without colour (NO_COLOR): bullets become
 * `•`, code is indented, a heading stands on its own line.
 */
export class MarkdownStream {
  private partial = "";
  private fence: string | undefined;

  /** Takes streamed text; returns the rendered complete lines it finished (each ends in "\n"). */
  push(text: string): string {
    this.partial += text;
    const end = this.partial.lastIndexOf("\n");
    if (end < 0) return "";
    const lines = this.partial.slice(0, end).split("\n");
    this.partial = this.partial.slice(end + 1);
    return lines.map((line) => `${this.renderLine(line)}\n`).join("");
  }

  /** The last, unfinished line rendered (the reply ended); the block state is reset. */
  flush(): string {
    const rest = this.partial;
    this.partial = "";
    const out = rest === "" ? "" : `${this.renderLine(rest)}\n`;
    this.fence = undefined;
    return out;
  }

  private renderLine(line: string): string {
    const fence = /^\s*(```+|~~~+)\s*(\S*)/.exec(line);
    if (this.fence !== undefined) {
      if (fence && line.trim().startsWith(this.fence)) {
        this.fence = undefined;
        return pc.dim("  ───");
      }
      return `  ${pc.cyan(line)}`;
    }
    if (fence) {
      this.fence = fence[1] as string;
      return pc.dim(`  ─── ${fence[2] || "code"}`);
    }
    return renderBlock(line);
  }
}

/** Renders a whole Markdown text (a reply read back from the session). */
export function renderMarkdown(text: string): string {
  const stream = new MarkdownStream();
  return (stream.push(text) + stream.flush()).replace(/\n$/, "");
}

function renderBlock(line: string): string {
  const heading = /^(#{1,6})\s+(.*)$/.exec(line);
  if (heading) {
    const text = renderInline((heading[2] as string).replace(/\s+#+\s*$/, ""));
    return heading[1] === "#" ? pc.bold(pc.underline(text)) : pc.bold(text);
  }
  if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) return pc.dim("────────");
  const quote = /^\s*>\s?(.*)$/.exec(line);
  if (quote) return `${pc.dim("│ ")}${renderInline(quote[1] as string)}`;
  const bullet = /^(\s*)[-*+]\s+(\[[ xX]\]\s+)?(.*)$/.exec(line);
  if (bullet) {
    const box = bullet[2] ? (/x/i.test(bullet[2]) ? "☑ " : "☐ ") : "";
    return `${bullet[1]}• ${box}${renderInline(bullet[3] as string)}`;
  }
  return renderInline(line);
}

/** Inline marks, outside code spans: code spans keep their text as it is. */
export function renderInline(text: string): string {
  return text
    .split(/(`+[^`]*`+)/)
    .map((part, i) => (i % 2 === 1 ? pc.cyan(part.replace(/^`+|`+$/g, "")) : emphasis(part)))
    .join("");
}

function emphasis(text: string): string {
  return text
    .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (_m, label: string, url: string) =>
      label === url ? pc.underline(url) : `${label} ${pc.dim(`(${url})`)}`,
    )
    .replace(/\*\*(?=\S)(.+?)(?<=\S)\*\*|__(?=\S)(.+?)(?<=\S)__/g, (_m, a?: string, b?: string) =>
      pc.bold(a ?? b ?? ""),
    )
    .replace(/~~(?=\S)(.+?)(?<=\S)~~/g, (_m, s: string) => pc.strikethrough(s))
    .replace(/(^|[^\w*])\*(?=\S)([^*]+?)(?<=\S)\*(?![\w*])|(^|\W)_(?=\S)([^_]+?)(?<=\S)_(?!\w)/g, (...m) =>
      m[1] !== undefined ? `${m[1]}${pc.italic(m[2])}` : `${m[3]}${pc.italic(m[4])}`,
    );
}
