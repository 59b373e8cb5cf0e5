/**
 * JSON with bytes: the OpenAI Agents SDK allows `Uint8Array` in some item fields (image and file
 * data), which JSON would turn into an object of numbered keys. Bytes are written as
 * `{ "$bytes": "<base64>" }` and read back as a Uint8Array, so such an item round-trips exactly.
 * Values without bytes are returned as they are (`hasBytes` says whether to decode at all).
 */
const BYTES_KEY = "$bytes";

export function hasBytes(value: unknown): boolean {
  if (value instanceof Uint8Array) return true;
  if (Array.isArray(value)) return value.some(hasBytes);
  if (value !== null && typeof value === "object") return Object.values(value).some(hasBytes);
  return false;
}

export function encodeBytes(value: unknown): unknown {
  if (value instanceof Uint8Array) return { [BYTES_KEY]: Buffer.from(value).toString("base64") };
  if (Array.isArray(value)) return value.map(encodeBytes);
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) define(out, key, encodeBytes(inner));
    return out;
  }
  return value;
}

export function decodeBytes(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(decodeBytes);
  if (value === null || typeof value !== "object") return value;
  const keys = Object.keys(value);
  const bytes = (value as Record<string, unknown>)[BYTES_KEY];
  if (keys.length === 1 && typeof bytes === "string") return new Uint8Array(Buffer.from(bytes, "base64"));
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) define(out, key, decodeBytes(inner));
  return out;
}

/** A plain field, even for a key like `__proto__` that assignment would treat specially. */
function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * The value as JSON stores it (keys holding undefined dropped): what the adapters keep, so a
 * session over a SessionManager's memory reads back the same as one over a file or a database,
 * and a caller changing its object afterwards changes nothing kept.
 */
export function jsonCopy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
