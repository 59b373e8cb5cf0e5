/** sessiontree/client: a typed, fetch-based client for the sessiontree HTTP API. */
export { SessionTreeClient } from "./client.js";
export { SessionTreeApiError } from "./errors.js";
export type * from "./types.js";
