/**
 * `sessiontree/langgraph`: a LangGraph checkpointer kept as a sessiontree tree.
 *
 * @example
 * import { SessionTreeSaver } from "sessiontree/langgraph";
 * const checkpointer = new SessionTreeSaver({ store: "sqlite:graphs.db" });
 * const graph = workflow.compile({ checkpointer });
 */
export type { ModelLabel } from "../history/pi-messages.js";
export type { StoreOrLocation } from "../history/store-history.js";
export {
  CHECKPOINT_CUSTOM_TYPE,
  MESSAGE_CUSTOM_TYPE,
  SYSTEM_CUSTOM_TYPE,
  WRITES_CUSTOM_TYPE,
} from "./records.js";
export { SessionTreeSaver, type SessionTreeSaverOptions } from "./saver.js";
