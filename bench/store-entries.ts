/** The store benches' entries: realistic messages (~400 bytes of JSON each), chained or not. */
import type { SessionEntry } from "../src/core/entry.js";

let serial = 0;

/** A user or assistant message. */
export function entry(id: string, parentId: string | null): SessionEntry {
  const text = `message ${serial++} `.padEnd(300, "lorem ipsum ");
  const role = serial % 2 === 0 ? "user" : "assistant";
  const message = { role, content: [{ type: "text", text }], timestamp: Date.now() };
  return { type: "message", id, parentId, timestamp: new Date().toISOString(), message } as SessionEntry;
}

/** `count` entries, each the child of the one before, the first under `parentId`. */
export function chain(prefix: string, count: number, parentId: string | null): SessionEntry[] {
  const out: SessionEntry[] = [];
  for (let i = 0; i < count; i++)
    out.push(entry(`${prefix}-${i}`, i === 0 ? parentId : `${prefix}-${i - 1}`));
  return out;
}
