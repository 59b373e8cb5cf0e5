import { createHash } from "node:crypto";
import { pageScript } from "./page-script.js";
import { SHAPE_PREFETCH_SCRIPT } from "./shape-prefetch.js";
import { VIEWER_STYLE } from "./style.js";

let cached: Record<string, string> | undefined;

/**
 * The headers the viewer's page is served with, locally and on the service. The page holds
 * session text, so its Content-Security-Policy allows its own inline script and stylesheet (by
 * hash) and requests to its own origin only: text that slipped past `textContent` could run no
 * script, load nothing and send nothing elsewhere. No framing (clickjacking), no referrer (a
 * session id in the hash stays on the page), never cached (the service page is public, the data
 * it shows is not).
 */
export function pageHeaders(): Record<string, string> {
  cached ??= {
    "Content-Security-Policy": [
      "default-src 'none'",
      `script-src '${sha256(pageScript())}' '${sha256(SHAPE_PREFETCH_SCRIPT)}'`,
      `style-src '${sha256(VIEWER_STYLE)}'`,
      "connect-src 'self'",
      "img-src 'self' data:",
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ].join("; "),
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cache-Control": "no-store",
  };
  return cached;
}

function sha256(text: string): string {
  return `sha256-${createHash("sha256").update(text, "utf8").digest("base64")}`;
}
