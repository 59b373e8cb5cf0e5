import type { ViewerSession } from "./source.js";

/**
 * How the page starts: asking the live viewer's routes, or from a session inlined in the file.
 * The server writes it into the page as JSON (`<script id="boot">`); the page's script reads it.
 */
export type ViewerBoot = { mode: "server" } | { mode: "export"; session: ViewerSession };
