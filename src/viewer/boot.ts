import type { ViewerSession } from "./source.js";

/**
 * How the page starts: asking the local viewer's routes (`server`), asking the session service's
 * API as the signed-in user (`service`), or from a session inlined in the file (`export`).
 * The server writes it into the page as JSON (`<script id="boot">`); the page's script reads it.
 */
export type ViewerBoot =
  | { mode: "server" }
  | { mode: "service" }
  | { mode: "export"; session: ViewerSession };
