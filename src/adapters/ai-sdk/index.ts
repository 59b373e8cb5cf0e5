/**
 * `sessiontree/ai-sdk`: the AI SDK chat (`UIMessage[]`) kept as a sessiontree tree, with every
 * regenerated answer and edited prompt kept as a version.
 *
 * @example
 * import { createChatStore } from "sessiontree/ai-sdk";
 * const { loadChat, saveChat } = createChatStore({ store: "sqlite:chats.db" });
 */
export type { SessionManagerLike } from "../../session/session-manager-like.js";
export type { ModelLabel } from "../history/pi-messages.js";
export type { StoreOrLocation } from "../history/store-history.js";
export type { Alternatives, MessageVersion } from "./alternatives.js";
export { type ChatStore, type ChatStoreOptions, createChatStore, type SaveChatInput } from "./chat-store.js";
export { SYSTEM_CUSTOM_TYPE } from "./ui-draft.js";
