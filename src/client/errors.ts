/** An error answer of the sessiontree API: `code` is stable, branch on it (and on `status`). */
export class SessionTreeApiError extends Error {
  readonly status: number;
  readonly code: string;
  /** On 412: the session's current revision, to re-read and retry from. */
  readonly currentRevision: number | undefined;

  constructor(status: number, code: string, message: string, currentRevision?: number) {
    super(message);
    this.name = "SessionTreeApiError";
    this.status = status;
    this.code = code;
    this.currentRevision = currentRevision;
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
  return new SessionTreeApiError(response.status, code, message, revision);
}
