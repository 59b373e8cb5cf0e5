import { originFrom } from "../history/origin.js";
import type { TreeShape } from "../history/tree-shape.js";
import { groupAt, type MessageGroup } from "./entry-ui.js";
import { FRAMEWORK } from "./ui-draft.js";

/** The message group starting at `id` in the whole tree, its last entry found along its parts. */
export function groupInTree(shape: TreeShape, id: string): MessageGroup | undefined {
  const entry = shape.get(id);
  const group = entry && groupAt(entry);
  if (!group) return undefined;
  for (let next = partUnder(shape, group); next !== undefined; next = partUnder(shape, group))
    group.lastId = next;
  return group;
}

function partUnder(shape: TreeShape, group: MessageGroup): string | undefined {
  return shape
    .childrenOf(group.lastId)
    .find((child) => originFrom(child, FRAMEWORK)?.partOf === group.message.id)?.id;
}

/** The versions hanging under `parentId`: every message group that starts there, oldest first. */
export function versionsUnder(shape: TreeShape, parentId: string | null): MessageGroup[] {
  return shape
    .childrenOf(parentId)
    .map((child) => groupInTree(shape, child.id))
    .filter((group): group is MessageGroup => group !== undefined);
}
