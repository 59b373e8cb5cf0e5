import { jsonShapeProblem } from "../../core/validate.js";
import { HttpError } from "./http-error.js";

/**
 * Reads a request body as UTF-8 text, refusing it (413) as soon as it grows past `maxBytes`, so
 * a huge or endless body never sits in memory whole. A declared Content-Length over the limit is
 * refused before reading.
 */
export async function readBodyText(request: Request, maxBytes: number): Promise<string> {
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
  try {
    // With a Content-Length (which Node's HTTP parser holds the body to) the whole body may be
    // read at once: @hono/node-server then skips building a web stream, much cheaper per request.
    if (Number.isFinite(declared)) return await request.text();
    return await readStreamed(request, maxBytes);
  } catch (error) {
    if (error instanceof HttpError) throw error;
    // The client went away mid-body (or sent a broken chunked encoding): its fault, not ours.
    throw new HttpError(400, "request_aborted", "The request body was cut off before its end");
  }
}

async function readStreamed(request: Request, maxBytes: number): Promise<string> {
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  return text;
}

function tooLarge(maxBytes: number): HttpError {
  return new HttpError(413, "payload_too_large", `The request body is larger than ${maxBytes} bytes`);
}

/** Deeper JSON is refused: recursive code further on (stringify, the stores) must not overflow the stack. */
const MAX_JSON_DEPTH = 64;

/** Parses a JSON body; a syntax error or absurd nesting is a 400 `invalid_json`. */
export function parseJson(text: string): unknown {
  if (text.trim() === "")
    throw new HttpError(400, "invalid_json", "The request body is empty; JSON expected");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HttpError(400, "invalid_json", "The request body is not valid JSON");
  }
  // The body itself is level 1 here: `MAX_JSON_DEPTH` levels of nesting below it are allowed.
  const problem = jsonShapeProblem(value, MAX_JSON_DEPTH + 1);
  if (problem === "too_deep") {
    throw new HttpError(400, "invalid_json", `JSON nested deeper than ${MAX_JSON_DEPTH} levels`);
  }
  if (problem === "not_finite") {
    throw new HttpError(400, "invalid_json", "The request holds a number too large for JSON (Infinity)");
  }
  return value;
}

export function requireJsonContentType(request: Request): void {
  const type = request.headers.get("content-type") ?? "";
  if (!/^application\/([a-z0-9.+-]*\+)?json\b/i.test(type.trim())) {
    throw new HttpError(415, "unsupported_media_type", "Send the body as application/json");
  }
}
