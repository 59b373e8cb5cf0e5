import type { UIMessage } from "ai";
import { v7 as uuidv7 } from "uuid";
import { ValidationError } from "../../core/errors.js";
import type { History } from "../history/history.js";
import { ManagerHistory } from "../history/manager-history.js";
import { checkSource, DEFAULT_OWNER, type HistorySource } from "../history/open-history.js";
import { type ModelLabel, UNKNOWN_MODEL } from "../history/pi-messages.js";
import { StoreHandle, StoreHistory, type StoreOrLocation } from "../history/store-history.js";
import { type Alternatives, listVersions, selectVersion } from "./alternatives.js";
import { messagesOf } from "./entry-ui.js";
import { planSave } from "./plan-save.js";
import { ownCopy } from "./stored-message.js";
import { hasUnfinishedParts, uiMessageToDrafts } from "./ui-draft.js";

export interface ChatStoreOptions extends HistorySource {
  /** The provider and model assistant messages are labelled with (pi shows them). */
  model?: ModelLabel;
}

export interface SaveChatInput<M extends UIMessage = UIMessage> {
  chatId: string;
  /** The whole chat as the client or `onFinish` has it; only what is new is written. */
  messages: M[];
  /** From `onFinish`: the stream was cancelled, so its message is saved as partial. */
  isAborted?: boolean;
  /** From `onFinish`: a stream that did not complete leaves a partial message. */
  outcome?: { status: string };
}

/** The AI SDK chat persistence functions, over one store (a chat per session) or one SessionManager. */
export interface ChatStore<M extends UIMessage = UIMessage> {
  /** A new, empty chat's id. */
  createChat(): Promise<string>;
  /** The chat's current path as UIMessages ([] for a chat never saved). */
  loadChat(chatId: string): Promise<M[]>;
  /** Appends the messages not stored yet; an edited or regenerated message becomes a new version. */
  saveChat(input: SaveChatInput<M>): Promise<void>;
  /** The versions of a message of the current path, for a "‹ 2/3 ›" switch. */
  listAlternatives(input: { chatId: string; messageId: string }): Promise<Alternatives>;
  /** Switches the chat to another version of a message; returns the chat as it now reads. */
  selectAlternative(input: { chatId: string; versionId: string }): Promise<M[]>;
  /** Closes the store when it was opened from a location. */
  close(): Promise<void>;
}

/**
 * The AI SDK chat kept as sessiontree trees: the persistence functions of the AI SDK's chatbot
 * guide (`createChat`, `loadChat`, `saveChat`), where nothing is ever overwritten.
 *
 * @example
 * const chats = createChatStore({ store: "sqlite:chats.db" });
 * // in the route: result.toUIMessageStreamResponse({ originalMessages: messages,
 * //   generateMessageId, onFinish: ({ messages, isAborted }) => chats.saveChat({ chatId, messages, isAborted }) })
 */
export function createChatStore<M extends UIMessage = UIMessage>(options: ChatStoreOptions): ChatStore<M> {
  checkSource(options);
  const handle = options.store === undefined ? undefined : new StoreHandle(options.store as StoreOrLocation);
  const label = options.model ?? UNKNOWN_MODEL;
  // One for the store's life: its saves wait for each other (`History.update`).
  const managerHistory = options.manager && new ManagerHistory(options.manager);
  const historyOf = (chatId: string): History => {
    if (managerHistory) {
      const only = managerHistory.manager.getSessionId();
      if (chatId !== only)
        throw new ValidationError("invalid_argument", `This chat store holds only chat ${only}`);
      return managerHistory;
    }
    requireId(chatId, "chatId");
    return new StoreHistory(handle as StoreHandle, options.owner ?? DEFAULT_OWNER, chatId, {
      cwd: options.cwd ?? "",
    });
  };
  return {
    async createChat() {
      if (options.manager) return options.manager.getSessionId();
      const chatId = uuidv7();
      await historyOf(chatId).sessionId();
      return chatId;
    },
    async loadChat(chatId) {
      const view = await historyOf(chatId).view();
      return messagesOf(view.path).map((group) => ownCopy<M>(group.message));
    },
    saveChat: (input) => saveChat(historyOf(input.chatId), input, label),
    listAlternatives: ({ chatId, messageId }) => listVersions(historyOf(chatId), messageId),
    selectAlternative: async ({ chatId, versionId }) =>
      (await selectVersion(historyOf(chatId), versionId)) as M[],
    close: async () => handle?.close(),
  };
}

async function saveChat(history: History, input: SaveChatInput, label: ModelLabel): Promise<void> {
  const seen = new Set<string>();
  for (const message of input.messages) {
    requireId(message.id, "message id");
    if (seen.has(message.id))
      throw new ValidationError("invalid_argument", `Message id ${message.id} appears twice in one chat`);
    seen.add(message.id);
  }
  // Only the last message can be the one a stream was writing when it stopped.
  const last = input.messages.at(-1);
  const stopped =
    input.isAborted === true || (input.outcome !== undefined && input.outcome.status !== "completed");
  const partial = last?.role === "assistant" && (stopped || hasUnfinishedParts(last)) ? last : undefined;
  await history.update(async () => {
    const view = await history.view();
    const plan = await planSave(history, view, input.messages);
    if (plan.append.length === 0) {
      if (view.leafId !== plan.parentId) await history.moveLeaf(plan.parentId, view);
      return;
    }
    const drafts = plan.append.flatMap((message) => uiMessageToDrafts(message, label, message === partial));
    await history.appendChain(plan.parentId, drafts, view);
  });
}

/** Ids name versions and sessions: an empty or missing one would merge messages that differ. */
function requireId(id: unknown, what: string): void {
  if (typeof id !== "string" || id === "") {
    throw new ValidationError(
      "invalid_argument",
      `Every ${what} must be a non-empty string (give the stream a generateMessageId)`,
    );
  }
}
