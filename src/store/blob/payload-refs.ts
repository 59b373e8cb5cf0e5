import type { SessionEntry } from "../../core/entry.js";
import { sha256Hex } from "./blob-store.js";

/**
 * Which payloads of an entry leave the row, and the reference that stands in for each.
 *
 * - An image content part `{ type: "image", data: <base64>, mimeType }`, of any size, becomes
 *   `{ type: "image", mimeType, blob: { sha256, size, encoding: "base64" } }`: the blob holds the
 *   decoded image bytes (what a viewer serves), `encoding` says how to put them back into `data`.
 * - A text content part `{ type: "text", text }` whose UTF-8 is above the threshold becomes
 *   `{ type: "text", blob: { sha256, size } }`: the blob holds the text as UTF-8.
 *
 * Every other key of the part is kept as it was. Parts are found anywhere in the entry (messages,
 * tool results, custom messages), so an entry type added later is covered too.
 */
export interface OffloadPolicy {
  /** Text parts strictly larger than this many UTF-8 bytes are offloaded. @default 65536 */
  textBytes: number;
  /** Offload image parts (of any size). @default true */
  images: boolean;
}

export const DEFAULT_OFFLOAD: OffloadPolicy = Object.freeze({ textBytes: 64 * 1024, images: true });

/** The reference a stored part carries instead of its payload. */
export interface PayloadRef {
  sha256: string;
  size: number;
  /** "base64": the part's `data` is the base64 of the blob; absent: the part's `text` is its UTF-8. */
  encoding?: "base64";
}

/** One payload taken out of an entry: its bytes, to put in the blob store before the entry is stored. */
export interface OffloadedPayload {
  sha256: string;
  bytes: Uint8Array;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** The entry with its large payloads replaced by references (the same object when none qualifies). */
export function offloadEntry(
  entry: SessionEntry,
  policy: OffloadPolicy,
  taken: OffloadedPayload[],
): SessionEntry {
  return mapParts(entry as unknown as Json, (part) =>
    offloadPart(part, policy, taken),
  ) as unknown as SessionEntry;
}

/** Every reference an entry holds (entries as stored). */
export function refsOf(entry: SessionEntry): PayloadRef[] {
  const refs: PayloadRef[] = [];
  mapParts(entry as unknown as Json, (part) => {
    const ref = partRef(part);
    if (ref) refs.push(ref);
    return part;
  });
  return refs;
}

/** The entry with each reference replaced by its payload (`bytes` by hash; every ref must be there). */
export function inlineEntry(entry: SessionEntry, bytes: ReadonlyMap<string, Uint8Array>): SessionEntry {
  return mapParts(entry as unknown as Json, (part) => {
    const ref = partRef(part);
    if (!ref) return part;
    const payload = bytes.get(ref.sha256);
    if (!payload) return part;
    const { blob: _blob, ...rest } = part;
    const buffer = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
    if (ref.encoding === "base64") return { ...rest, data: buffer.toString("base64") };
    return { ...rest, text: buffer.toString("utf8") };
  }) as unknown as SessionEntry;
}

function offloadPart(part: JsonObject, policy: OffloadPolicy, taken: OffloadedPayload[]): JsonObject {
  if (part.type === "image" && policy.images && typeof part.data === "string") {
    const bytes = Buffer.from(part.data, "base64");
    // Only canonical base64 is decoded: anything else would not come back byte for byte.
    if (bytes.toString("base64") !== part.data) return part;
    const { data: _data, ...rest } = part;
    return { ...rest, blob: take(bytes, taken, "base64") };
  }
  if (part.type === "text" && typeof part.text === "string" && part.text.length > policy.textBytes / 3) {
    const bytes = Buffer.from(part.text, "utf8");
    if (bytes.byteLength <= policy.textBytes) return part;
    const { text: _text, ...rest } = part;
    return { ...rest, blob: take(bytes, taken) };
  }
  return part;
}

function take(bytes: Uint8Array, taken: OffloadedPayload[], encoding?: "base64"): JsonObject {
  const sha256 = sha256Hex(bytes);
  taken.push({ sha256, bytes });
  const ref: JsonObject = { sha256, size: bytes.byteLength };
  if (encoding) ref.encoding = encoding;
  return ref;
}

/** The reference of a stored part, if it is one. */
function partRef(part: JsonObject): PayloadRef | undefined {
  if (part.type !== "image" && part.type !== "text") return undefined;
  const blob = part.blob;
  if (!blob || typeof blob !== "object" || Array.isArray(blob)) return undefined;
  if (typeof blob.sha256 !== "string" || typeof blob.size !== "number") return undefined;
  if (part.type === "image" ? "data" in part : "text" in part) return undefined;
  return {
    sha256: blob.sha256,
    size: blob.size,
    ...(blob.encoding === "base64" ? { encoding: "base64" } : {}),
  };
}

/**
 * Applies `change` to every object that is an element of an array (content parts live in arrays),
 * copying only the objects on the way to a changed part; the value itself when nothing changed.
 * An explicit stack would be needed for unbounded depth; entries are at most 64 levels deep.
 */
function mapParts(value: Json, change: (part: JsonObject) => JsonObject, inArray = false): Json {
  if (Array.isArray(value)) {
    let copy: Json[] | undefined;
    value.forEach((item, i) => {
      const next = mapParts(item, change, true);
      if (next !== item) {
        copy ??= value.slice();
        copy[i] = next;
      }
    });
    return copy ?? value;
  }
  if (value === null || typeof value !== "object") return value;
  let object: JsonObject = value;
  if (inArray) object = change(object);
  let copy: JsonObject | undefined;
  for (const key of Object.keys(object)) {
    const item = object[key] as Json;
    if (item === null || typeof item !== "object") continue;
    const next = mapParts(item, change);
    if (next !== item) {
      copy ??= { ...object };
      copy[key] = next;
    }
  }
  return copy ?? object;
}
