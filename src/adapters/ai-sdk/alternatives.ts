import type { UIMessage } from "ai";
import { NotFoundError } from "../../core/errors.js";
import type { History } from "../history/history.js";
import { TreeShape } from "../history/tree-shape.js";
import { type MessageGroup, messagesOf } from "./entry-ui.js";
import { ownCopy } from "./stored-message.js";
import { groupInTree, versionsUnder } from "./tree-groups.js";

/** One version of a message, as a "‹ 2/3 ›" switch shows it. */
export interface MessageVersion {
  /** Pass to `selectAlternative`. */
  versionId: string;
  message: UIMessage;
  /** Saved from a stream that did not complete. */
  partial: boolean;
  /** On the chat's current path. */
  selected: boolean;
}

export interface Alternatives {
  /** The selected version's position in `versions` (0-based): show `index + 1` of `versions.length`. */
  index: number;
  versions: MessageVersion[];
}

/**
 * The versions of the message `messageId` of the current path: it and every message saved at the
 * same point (regenerated answers, edited prompts), oldest first. An assistant version saved again
 * later under the same id is left out: the AI SDK reuses an answer's id only to continue it (a
 * resumed stream, a tool output or approval added), so the later one stands for it. (A prompt
 * edited with `sendMessage({ messageId })` keeps its id too, and both versions are listed.)
 */
export async function listVersions(history: History, messageId: string): Promise<Alternatives> {
  const view = await history.view();
  const shown = messagesOf(view.path).find((group) => group.message.id === messageId);
  if (!shown) {
    throw new NotFoundError("entry_not_found", `No message ${messageId} on the chat's current path`, {
      details: { messageId },
    });
  }
  const shape = new TreeShape(await history.entries());
  const parentId = shape.get(shown.firstId)?.parentId ?? null;
  const versions = versionsUnder(shape, parentId).filter(
    (version, i, all) => !superseded(version, all.slice(i + 1)),
  );
  const list = versions.map((version) => ({
    versionId: version.firstId,
    message: ownCopy(version.message),
    partial: version.partial,
    selected: version.firstId === shown.firstId,
  }));
  return {
    index: Math.max(
      0,
      list.findIndex((version) => version.selected),
    ),
    versions: list,
  };
}

function superseded(version: MessageGroup, later: MessageGroup[]): boolean {
  return (
    version.message.role === "assistant" && later.some((other) => other.message.id === version.message.id)
  );
}

/**
 * Moves the chat to the version `versionId`: to the branch under it written last (where that
 * version's conversation was left), or to the version itself. Returns the chat as it now reads.
 */
export function selectVersion(history: History, versionId: string): Promise<UIMessage[]> {
  return history.update(async () => {
    const shape = new TreeShape(await history.entries());
    if (!groupInTree(shape, versionId)) {
      throw new NotFoundError("entry_not_found", `No message version ${versionId} in this chat`, {
        details: { versionId },
      });
    }
    const leaf = shape.latestTipUnder(versionId)?.id ?? versionId;
    await history.moveLeaf(leaf);
    return messagesOf(shape.pathTo(leaf)).map((group) => ownCopy(group.message));
  });
}
