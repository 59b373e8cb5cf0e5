/** Bytes that crossed the wire, both ways, as HTTP/1.1 would carry them (headers and bodies). */
export interface TransferCount {
  requests: number;
  sent: number;
  received: number;
}

/**
 * A `fetch` that counts what it sends and receives: the request line, header lines and body out,
 * the status line, header lines and body back (what `sessiontree sync` reports, and what the test
 * of "a sync with no changes transfers under 1 KB per 100 sessions" measures). Transport framing
 * (TLS, chunk sizes) is not counted.
 */
export function countingFetch(inner: typeof fetch = globalThis.fetch): {
  fetch: typeof fetch;
  count: TransferCount;
} {
  const count: TransferCount = { requests: 0, sent: 0, received: 0 };
  const counted = async (input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const headers = new Headers(init?.headers);
    const body = typeof init?.body === "string" ? init.body : "";
    count.requests++;
    count.sent += byteLength(`${init?.method ?? "GET"} ${url.pathname}${url.search} HTTP/1.1\r\n`);
    count.sent += byteLength(`host: ${url.host}\r\n`) + headerBytes(headers) + 2 + byteLength(body);
    if (body) count.sent += byteLength(`content-length: ${byteLength(body)}\r\n`);
    const response = await inner(input, init);
    const bytes = new Uint8Array(await response.arrayBuffer());
    count.received += byteLength(`HTTP/1.1 ${response.status} ${response.statusText}\r\n`);
    count.received += headerBytes(response.headers) + 2 + bytes.length;
    return new Response(hasBody(response.status) ? bytes : null, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
  return { fetch: counted as typeof fetch, count };
}

function headerBytes(headers: Headers): number {
  let total = 0;
  headers.forEach((value, name) => {
    total += byteLength(`${name}: ${value}\r\n`);
  });
  return total;
}

function hasBody(status: number): boolean {
  return status !== 204 && status !== 304 && !(status >= 100 && status < 200);
}

function byteLength(text: string): number {
  return Buffer.byteLength(text);
}
