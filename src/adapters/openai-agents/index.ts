/**
 * `sessiontree/openai-agents`: the OpenAI Agents SDK's `Session`, kept as a sessiontree tree.
 *
 * @example
 * import { SessionTreeSession } from "sessiontree/openai-agents";
 * const session = new SessionTreeSession({ store: "sqlite:sessions.db", sessionId: "user-42" });
 * await run(agent, "Hello", { session });
 */
export type { SessionManagerLike } from "../../session/session-manager-like.js";
export type { ModelLabel } from "../history/pi-messages.js";
export type { StoreOrLocation } from "../history/store-history.js";
export type { ItemEntry } from "./entry-item.js";
export { ITEM_CUSTOM_TYPE, SYSTEM_CUSTOM_TYPE } from "./item-draft.js";
export { type BranchInfo, SessionTreeSession, type SessionTreeSessionOptions } from "./session.js";
