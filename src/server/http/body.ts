import { HttpError } from "./errors.js";

/**
 * Reads a request body as UTF-8 text, refusing it (413) as soon as it grows past `maxBytes`, so
 * a huge or endless body never sits in memory whole. A declared Content-Length over the limit is
 * refused before reading.
 */
export async function readBodyText(request: Request, maxBytes: number): Promise<string> {
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
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

/** Parses a JSON body; any syntax error is a 400 `invalid_json`. */
export function parseJson(text: string): unknown {
  if (text.trim() === "") throw new HttpError(400, "invalid_json", "The request body is empty; JSON expected");
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError(400, "invalid_json", "The request body is not valid JSON");
  }
}

export function requireJsonContentType(request: Request): void {
  const type = request.headers.get("content-type") ?? "";
  if (!/^application\/([a-z0-9.+-]*\+)?json\b/i.test(type.trim())) {
    throw new HttpError(415, "unsupported_media_type", "Send the body as application/json");
  }
}
