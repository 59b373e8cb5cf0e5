/** An error answer of the sessiontree API: `code` is stable, branch on it (and on `status`). */
export class SessionTreeApiError extends Error {
  readonly status: number;
  readonly code: string;
  /** On 412: the session's current revision, to re-read and retry from. */
  readonly currentRevision: number | undefined;
  /** On 429 and 503: the answer's `Retry-After`, in seconds (undefined when absent or unreadable). */
  readonly retryAfter: number | undefined;

  constructor(status: number, code: string, message: string, currentRevision?: number, retryAfter?: number) {
    super(message);
    this.name = "SessionTreeApiError";
    this.status = status;
    this.code = code;
    this.currentRevision = currentRevision;
    this.retryAfter = retryAfter;
  }
}

/** Builds the error from a non-2xx response, whatever its body holds. */
export async function errorFromResponse(response: Response): Promise<SessionTreeApiError> {
  const text = await response.text().catch(() => "");
  let body: { code?: unknown; message?: unknown; currentRevision?: unknown } = {};
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON (a proxy's error page): keep the status, name the code after it.
  }
  const code = typeof body.code === "string" ? body.code : `http_${response.status}`;
  const message = typeof body.message === "string" ? body.message : text.slice(0, 200) || response.statusText;
  const revision = typeof body.currentRevision === "number" ? body.currentRevision : undefined;
  const retryAfter = retryAfterSeconds(response.headers.get("retry-after"));
  return new SessionTreeApiError(response.status, code, message, revision, retryAfter);
}

/** `Retry-After` as seconds from now: delay-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function retryAfterSeconds(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}
