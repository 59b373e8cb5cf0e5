/**
 * A deep copy of plain JSON data (what `JSON.parse` makes: objects, arrays, strings, numbers,
 * booleans, null). Stores hand out copies of the entries they keep; for this kind of value a
 * walk is about ten times cheaper than `structuredClone`, which serializes. Anything else (a
 * Date, a Map, a class instance) is not JSON data and is not expected here: it is copied as a
 * plain object of its own enumerable properties, as `JSON.parse(JSON.stringify(…))` would make it.
 */
export function copyJson<T>(value: T): T {
  return copyValue(value) as T;
}

function copyValue(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copyValue(value[i]);
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const copied = copyValue((value as Record<string, unknown>)[key]);
    // JSON.parse makes "__proto__" an own property; an assignment would set the prototype instead.
    if (key === "__proto__") {
      Object.defineProperty(out, key, {
        value: copied,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else {
      out[key] = copied;
    }
  }
  return out;
}
