import type { AgentInputItem } from "@openai/agents";
import type { SessionEntry } from "../../core/entry.js";
import { messageText } from "../../core/messages.js";
import { decodeBytes } from "../history/binary-json.js";
import { originFrom } from "../history/origin.js";
import { keptRecord } from "../history/record-text.js";
import { FRAMEWORK, GROUP_KEY } from "./item-draft.js";

/**
 * The item an entry holds: the one the adapter stored (exactly as given; as text, or as an object
 * by earlier versions), or, for a message another writer appended (pi continuing the session,
 * `sessiontree` tools), its text as a user or assistant message. Other entries (settings, labels,
 * tool calls not written through the adapter) are not items: undefined.
 */
export function entryToItem(entry: SessionEntry): AgentInputItem | undefined {
  const origin = originFrom(entry, FRAMEWORK);
  const item = origin && keptRecord(entry, origin, "item");
  if (item !== undefined) return (origin?.bytes === true ? decodeBytes(item) : item) as AgentInputItem;
  if (entry.type !== "message") return undefined;
  const message = entry.message as { role: string; content?: unknown };
  if (message.role === "user") return { role: "user", content: messageText(message) };
  if (message.role === "assistant") {
    const said = messageText(message);
    if (said === "") return undefined;
    return { role: "assistant", status: "completed", content: [{ type: "output_text", text: said }] };
  }
  return undefined;
}

/** The items an entry holds: several for parallel function calls (`itemsToDrafts`), else `entryToItem`'s. */
export function entryToItems(entry: SessionEntry): AgentInputItem[] {
  const origin = originFrom(entry, FRAMEWORK);
  if (origin === undefined || !(GROUP_KEY in origin)) {
    const item = entryToItem(entry);
    return item === undefined ? [] : [item];
  }
  const items = keptRecord(entry, origin, GROUP_KEY);
  return Array.isArray(items) ? (items as AgentInputItem[]) : [];
}

export interface ItemEntry {
  /**
   * The entry holding the item: `checkout(entryId)` rewinds the conversation to just after it (after
   * all of them, for parallel function calls, which share one entry).
   */
  entryId: string;
  item: AgentInputItem;
}

/** The items along a path, with their entries, oldest first. */
export function itemsOf(path: readonly SessionEntry[]): ItemEntry[] {
  const found: ItemEntry[] = [];
  for (const entry of path) for (const item of entryToItems(entry)) found.push({ entryId: entry.id, item });
  return found;
}
