/**
 * JSON with object keys sorted, so two entries compare equal whatever their key order
 * (PostgreSQL, a client library or a migration may reorder keys; the content is what counts).
 *
 * The text is what `JSON.stringify` gives for the same value with its keys sorted, but it is built
 * with an explicit stack: no nesting, however deep, can overflow the call stack (entries come from
 * files and clients). Keys are written as they are, `"__proto__"` included: building sorted copies
 * of objects would turn that key into a prototype and drop its content from the comparison.
 */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  const open = new Set<object>();
  const stack: Work[] = [{ value, key: "", inArray: false }];
  for (let work = stack.pop(); work !== undefined; work = stack.pop()) {
    if (typeof work === "string") out.push(work);
    else if ("close" in work) open.delete(work.close);
    else writeValue(work, out, stack, open);
  }
  // JSON.stringify(undefined) is undefined: callers comparing two such values still get equality.
  return out.length === 0 ? (undefined as unknown as string) : out.join("");
}

/** Whether two stored entries carry the same content. */
export function sameContent(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

/** A literal piece of text, a value still to write, or the end of an object or array being written. */
type Work = string | ValueWork | { close: object };
interface ValueWork {
  value: unknown;
  key: string;
  inArray: boolean;
}

function writeValue(work: ValueWork, out: string[], stack: Work[], open: Set<object>): void {
  const value = jsonValue(work.value, work.key);
  if (value === undefined || typeof value === "function" || typeof value === "symbol") {
    // Dropped from objects (see `members`), null in arrays, nothing at the top, as JSON.stringify does.
    if (work.inArray) out.push("null");
    return;
  }
  if (value === null || typeof value !== "object") {
    out.push(primitive(value));
    return;
  }
  if (open.has(value)) throw new TypeError("Converting circular structure to JSON");
  open.add(value);
  stack.push({ close: value });
  if (Array.isArray(value)) pushArray(value, stack);
  else pushObject(value as Record<string, unknown>, stack);
}

/** Work is popped last-in first-out, so an object's pieces are pushed from its end. */
function pushArray(array: readonly unknown[], stack: Work[]): void {
  stack.push("]");
  for (let i = array.length - 1; i >= 0; i--) {
    stack.push({ value: array[i], key: String(i), inArray: true });
    if (i > 0) stack.push(",");
  }
  stack.push("[");
}

function pushObject(object: Record<string, unknown>, stack: Work[]): void {
  const keys = members(object);
  stack.push("}");
  for (let i = keys.length - 1; i >= 0; i--) {
    const key = keys[i] as string;
    stack.push({ value: object[key], key, inArray: false });
    stack.push(`${i > 0 ? "," : ""}${JSON.stringify(key)}:`);
  }
  stack.push("{");
}

/** The sorted keys whose values JSON keeps (not undefined, functions or symbols, after `toJSON`). */
function members(object: Record<string, unknown>): string[] {
  return Object.keys(object)
    .sort()
    .filter((key) => {
      const value = jsonValue(object[key], key);
      return value !== undefined && typeof value !== "function" && typeof value !== "symbol";
    });
}

/** `toJSON` (dates) and boxed primitives, as JSON.stringify applies them before writing a value. */
function jsonValue(value: unknown, key: string): unknown {
  let current = value;
  if (current !== null && typeof current === "object") {
    const toJSON = (current as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === "function") current = toJSON.call(current, key);
  }
  if (current instanceof Number || current instanceof String || current instanceof Boolean) {
    return current.valueOf();
  }
  return current;
}

function primitive(value: unknown): string {
  if (typeof value === "bigint") throw new TypeError("Do not know how to serialize a BigInt");
  // Numbers (non-finite ones become null), strings, booleans and null, exactly as JSON writes them.
  return JSON.stringify(value);
}
