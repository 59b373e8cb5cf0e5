import type { UIMessage } from "ai";
import type { History, HistoryView } from "../history/history.js";
import { TreeShape } from "../history/tree-shape.js";
import { type MessageGroup, messagesOf } from "./entry-ui.js";
import { sameMessage } from "./stored-message.js";
import { versionsUnder } from "./tree-groups.js";

/** Where a save hangs what is new, and what is new. */
export interface SavePlan {
  /** The last entry of the last message already stored (null: the chat starts with `append`). */
  parentId: string | null;
  append: UIMessage[];
}

/**
 * Follows `messages` down the tree: a message already stored at that point (same id, same content)
 * is walked over, whether on the current path or on another branch (a retry, or a client showing
 * another version). The first message that is not there, and all after it, are new: they hang under
 * the last one found. So a client sending the whole history appends only what it added; a
 * regenerated answer (a new id) or an edited message (same id, new content) becomes a new version
 * beside the old one, which stays.
 */
export async function planSave(
  history: History,
  view: HistoryView,
  messages: UIMessage[],
): Promise<SavePlan> {
  const onPath = messagesOf(view.path);
  let parentId: string | null = null;
  let shape: TreeShape | undefined;
  for (const [index, message] of messages.entries()) {
    const stored = onPath[index];
    if (stored && stored.message.id === message.id && sameMessage(stored.message, message)) {
      parentId = stored.lastId;
      continue;
    }
    onPath.length = 0; // left the current path: the rest is looked up in the whole tree
    shape ??= new TreeShape(await history.entries());
    const found: MessageGroup | undefined = versionsUnder(shape, parentId).find(
      (version) => version.message.id === message.id && sameMessage(version.message, message),
    );
    if (!found) return { parentId, append: messages.slice(index) };
    parentId = found.lastId;
  }
  return { parentId, append: [] };
}
