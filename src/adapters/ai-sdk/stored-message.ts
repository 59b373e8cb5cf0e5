import type { UIMessage } from "ai";
import { sameContent } from "../../core/canonical-json.js";

/**
 * The JSON text of stored messages that cannot change: the history caches hand out deep-frozen
 * entries, shared from save to save, so each is written once rather than on every save (a save
 * compares the client's whole chat with the stored path: O(chat) writes per save otherwise).
 */
const textOfFrozen = new WeakMap<object, string>();

function textOf(message: UIMessage): string {
  if (!Object.isFrozen(message)) return JSON.stringify(message);
  let text = textOfFrozen.get(message);
  if (text === undefined) {
    text = JSON.stringify(message);
    textOfFrozen.set(message, text);
  }
  return text;
}

/**
 * Whether a client's message carries what a stored one does. The same JSON text is the same
 * content, and is what a client sends back when it saves the messages it loaded; other key orders
 * fall back to the canonical comparison.
 */
export function sameMessage(stored: UIMessage, incoming: UIMessage): boolean {
  return textOf(stored) === JSON.stringify(incoming) || sameContent(stored, incoming);
}

/** The caller's own copy of a stored message (stored ones may be shared and frozen). */
export function ownCopy<M extends UIMessage>(message: UIMessage): M {
  return structuredClone(message) as M;
}
