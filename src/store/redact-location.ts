/**
 * A store location as it may be shown (an error message, a log line, advice printed for the
 * operator): any password in it replaced by `****`, the rest as written.
 *
 * Done on the text, not through `new URL`: the locations shown are often the ones no backend
 * takes (`postgress://…`, `POSTGRES://…`, a leading space, `postgres:/…`), which `URL` parses
 * differently or not at all, and its serialization would show the operator a different string
 * (a lowercased scheme) than the one they wrote. When in doubt it hides more, never less: from
 * the first `:` after `scheme:/` (or the start) up to the last `@` (a password may hold an `@`),
 * and every `password=` parameter.
 *
 * @example
 * redactPassword("postgress://app:s3cret@db:5432/st") // "postgress://app:****@db:5432/st"
 */
export function redactPassword(location: string): string {
  return hideUserinfoPassword(location).replace(/(password=)[^&\s]*/gi, "$1****");
}

function hideUserinfoPassword(location: string): string {
  const at = location.lastIndexOf("@");
  if (at < 0) return location;
  // After `scheme:/` or `scheme://` when there is one; else from the start (`user:pw@host`).
  const userinfo = /^\s*[a-z][a-z0-9+.-]*:\/+/i.exec(location)?.[0].length ?? 0;
  const colon = location.indexOf(":", userinfo);
  if (colon < 0 || colon > at) return location;
  return `${location.slice(0, colon + 1)}****${location.slice(at)}`;
}
