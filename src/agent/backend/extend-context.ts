import { contextRole, type ProjectedContext, projectContext } from "../../core/context.js";
import { assertNever, type SessionEntry } from "../../core/entry.js";

/**
 * The context at `entry` made from the context at its parent: what `projectContext` gives for the
 * parent's path plus `entry`, without walking that path again. Null for a compaction, which
 * rearranges what came before it: that path is projected afresh. The result is a new object;
 * `context` is left as it was (it may have been handed out).
 */
export function extendContext(context: ProjectedContext, entry: SessionEntry): ProjectedContext | null {
  const role = contextRole(entry.type);
  switch (role) {
    case "compaction":
      return null;
    case "none":
      return context;
    case "message":
    case "setting":
    case "extension": {
      // The entry's own projection applies core's rules to it: the message it becomes (if any),
      // the model an assistant message or model change sets, the extension state a custom sets.
      const own = projectContext([entry]);
      return {
        ...context,
        messages: [...context.messages, ...own.messages],
        thinkingLevel: entry.type === "thinking_level_change" ? own.thinkingLevel : context.thinkingLevel,
        model: own.model ?? context.model,
        extensionState: { ...context.extensionState, ...own.extensionState },
        messageEntryIds: [...context.messageEntryIds, ...own.messageEntryIds],
      };
    }
    default:
      return assertNever(role, "context role");
  }
}
