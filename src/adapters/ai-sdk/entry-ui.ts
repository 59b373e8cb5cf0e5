import type { UIMessage } from "ai";
import type { SessionEntry } from "../../core/entry.js";
import { messageText } from "../../core/messages.js";
import { originFrom } from "../history/origin.js";
import { keptRecord } from "../history/record-text.js";
import { FRAMEWORK } from "./ui-draft.js";

/** One saved UIMessage and the entries holding it (a version of that message). */
export interface MessageGroup {
  /** The stored message itself, shared and possibly frozen: read it, or hand out `ownCopy` of it. */
  message: UIMessage;
  /** The entry holding the UIMessage: the version's id (`selectAlternative`). */
  firstId: string;
  /** Where the next message hangs. */
  lastId: string;
  partial: boolean;
}

/**
 * The UIMessages along a path, oldest first. A message another writer appended (pi continuing
 * the chat) reads as a text message whose id is its entry's; other entries are not messages.
 */
export function messagesOf(path: readonly SessionEntry[]): MessageGroup[] {
  const groups: MessageGroup[] = [];
  for (const entry of path) {
    const origin = originFrom(entry, FRAMEWORK);
    const current = groups.at(-1);
    if (origin?.partOf !== undefined) {
      if (current && current.message.id === origin.partOf) current.lastId = entry.id;
      continue;
    }
    const group = groupAt(entry);
    if (group) groups.push(group);
  }
  return groups;
}

/** The message group an entry starts, or undefined (a part of another message, or no message). */
export function groupAt(entry: SessionEntry): MessageGroup | undefined {
  const origin = originFrom(entry, FRAMEWORK);
  // Kept as JSON text (as an object by earlier versions).
  const saved = origin && (keptRecord(entry, origin, "message") as UIMessage | undefined);
  if (saved !== undefined) {
    return { message: saved, firstId: entry.id, lastId: entry.id, partial: origin?.partial === true };
  }
  if (origin !== undefined || entry.type !== "message") return undefined;
  const message = entry.message as { role: string; content?: unknown };
  if (message.role !== "user" && message.role !== "assistant") return undefined;
  const said = messageText(message);
  if (message.role === "assistant" && said === "") return undefined;
  const parts: UIMessage["parts"] = [{ type: "text", text: said }];
  return {
    message: { id: entry.id, role: message.role, parts },
    firstId: entry.id,
    lastId: entry.id,
    partial: false,
  };
}
