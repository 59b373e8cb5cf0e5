/** One server-sent event: the `event:` name ("message" when absent) and the joined `data:` lines. */
export interface SseEvent {
  event: string;
  data: string;
}

/** Parses a fetch body as server-sent events (the WHATWG framing: blank line ends an event). */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let boundary = findBoundary(buffer);
    while (boundary) {
      const event = parseEvent(buffer.slice(0, boundary.index));
      buffer = buffer.slice(boundary.index + boundary.length);
      if (event) yield event;
      boundary = findBoundary(buffer);
    }
  }
  // The spec discards an event the stream ended inside. Servers that omit the last blank line are
  // common, so a tail whose data is whole is kept; one cut mid-way is dropped, and the provider
  // then sees a stream that ended early (retried) instead of a JSON error.
  const tail = parseEvent(buffer + decoder.decode());
  if (tail && isWhole(tail.data)) yield tail;
}

function isWhole(data: string): boolean {
  if (data === "[DONE]") return true;
  try {
    JSON.parse(data);
    return true;
  } catch {
    return false;
  }
}

function findBoundary(buffer: string): { index: number; length: number } | undefined {
  const match = /\r?\n\r?\n/.exec(buffer);
  return match ? { index: match.index, length: match[0].length } : undefined;
}

function parseEvent(block: string): SseEvent | undefined {
  let event = "message";
  const data: string[] = [];
  for (const line of block.split(/\r?\n/)) {
    if (line.startsWith(":") || line === "") continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "event") event = value;
    else if (field === "data") data.push(value);
  }
  return data.length > 0 ? { event, data: data.join("\n") } : undefined;
}
