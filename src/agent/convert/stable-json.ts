/**
 * JSON with object keys sorted at every depth: the same value always gives the same bytes, so the
 * same context always gives a byte-identical request.
 */
export { canonicalJson as stableStringify } from "../../core/canonical-json.js";
