import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encodeCwd, sessionsDir } from "../../src/file/paths.js";

/** A throwaway root and cache directory; the cache is what the search index uses while it lives. */
export function searchWorkspace(): { dir: string; root: string; cache: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "sessiontree-search-"));
  const cache = join(dir, "cache");
  const before = process.env.SESSIONTREE_CACHE_DIR;
  process.env.SESSIONTREE_CACHE_DIR = cache;
  return {
    dir,
    root: join(dir, "root"),
    cache,
    cleanup: () => {
      if (before === undefined) delete process.env.SESSIONTREE_CACHE_DIR;
      else process.env.SESSIONTREE_CACHE_DIR = before;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface EntrySpec {
  id: string;
  parentId?: string | null;
  /** A user message's text (default), or another entry given whole. */
  text?: string;
  role?: "user" | "assistant" | "toolResult";
  entry?: Record<string, unknown>;
  minute?: number;
}

let clock = 0;

/** One entry line (no newline): a message with `text` unless `entry` gives the fields. */
export function entryLine(spec: EntrySpec, previous: string | null = null): string {
  const minute = spec.minute ?? ++clock % 60;
  const timestamp = `2026-02-01T10:${String(minute).padStart(2, "0")}:00.000Z`;
  const parentId = spec.parentId === undefined ? previous : spec.parentId;
  const fields = spec.entry ?? {
    type: "message",
    message: messageOf(spec.role ?? "user", spec.text ?? ""),
  };
  return JSON.stringify({ type: fields.type, id: spec.id, parentId, timestamp, ...fields });
}

function messageOf(role: string, text: string): Record<string, unknown> {
  const content = [{ type: "text", text }];
  if (role === "assistant")
    return {
      role,
      content,
      api: "x",
      provider: "x",
      model: "m",
      usage: {},
      stopReason: "stop",
      timestamp: 1,
    };
  if (role === "toolResult")
    return { role, toolCallId: "c1", toolName: "bash", content, isError: false, timestamp: 1 };
  return { role, content, timestamp: 1 };
}

/** Writes a session of `cwd` under `root`: the header, then the entries chained unless told. */
export function writeSession(
  root: string,
  cwd: string,
  sessionId: string,
  entries: EntrySpec[],
  options: { trailing?: string } = {},
): string {
  const dir = join(sessionsDir(root), encodeCwd(cwd));
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `2026-02-01T10-00-00-000Z_${sessionId}.jsonl`);
  const header = JSON.stringify({
    type: "session",
    version: 3,
    id: sessionId,
    timestamp: "2026-02-01T10:00:00.000Z",
    cwd,
  });
  const lines = [header];
  let previous: string | null = null;
  for (const spec of entries) {
    lines.push(entryLine(spec, previous));
    previous = spec.id;
  }
  writeFileSync(path, `${lines.join("\n")}\n${options.trailing ?? ""}`);
  return path;
}

/** Appends raw text (lines, a torn tail) to a session file. */
export function appendRaw(path: string, text: string): void {
  appendFileSync(path, text);
}
