import type { SerializerProtocol } from "@langchain/langgraph-checkpoint";

/**
 * A value as the saver's serde wrote it, in a form an entry can hold: serde answers a type and
 * bytes; bytes that are UTF-8 (every "json" value of LangGraph's JsonPlusSerializer) are kept as
 * text, anything else as base64. Kept as text rather than parsed, so a value nested deeper than an
 * entry may be still fits, and what serde reads back is byte for byte what it wrote.
 */
export type StoredValue = { type: string; text: string } | { type: string; base64: string };

const utf8 = new TextDecoder("utf-8", { fatal: true });

export async function dumpValue(serde: SerializerProtocol, value: unknown): Promise<StoredValue> {
  const [type, bytes] = await serde.dumpsTyped(value);
  if (type !== "bytes") {
    try {
      return { type, text: utf8.decode(bytes) };
    } catch {
      // Not UTF-8: kept as base64 below.
    }
  }
  return { type, base64: Buffer.from(bytes).toString("base64") };
}

export function loadValue(serde: SerializerProtocol, stored: StoredValue): Promise<unknown> {
  if ("text" in stored) return serde.loadsTyped(stored.type, stored.text);
  return serde.loadsTyped(stored.type, new Uint8Array(Buffer.from(stored.base64, "base64")));
}

/** The stored value's JSON text, for comparing two values without reading them back. */
export function valueKey(stored: StoredValue): string {
  return "text" in stored ? `${stored.type}:${stored.text}` : `${stored.type};${stored.base64}`;
}
