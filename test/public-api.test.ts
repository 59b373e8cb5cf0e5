import assert from "node:assert/strict";
import { it } from "node:test";
import * as root from "../src/index.js";

// The package root is what users import: a name added here is a promise kept across versions.
// Adding one should be a decision, so the list is written out; internals shared between layers
// (ids, canonical JSON, validation, index codes) are imported from their own modules instead.
const ROOT_RUNTIME_EXPORTS = [
  "CURRENT_SESSION_VERSION",
  "ConflictError",
  "CorruptSessionError",
  "ENTRY_TYPES",
  "JsonlStore",
  "LeaseHeldError",
  "MemoryStore",
  "NotFoundError",
  "SessionDecoder",
  "SessionFile",
  "SessionManager",
  "SessionTree",
  "SessionTreeError",
  "ValidationError",
  "WriterLease",
  "buildSessionContext",
  "decodeSession",
  "defaultPiAgentDir",
  "defaultRoot",
  "encodeLine",
  "encodeSession",
  "findMostRecentSession",
  "fsckFile",
  "getAgentDir",
  "getDefaultSessionDir",
  "getLatestCompactionEntry",
  "isKnownEntryType",
  "isLeafMarker",
  "isSessionTreeError",
  "loadEntriesFromFile",
  "migrateFile",
  "migrateSessionEntries",
  "parseSessionEntries",
  "projectContext",
  "repairFile",
  "sessionDirFor",
];

it("the package root exports exactly the public runtime names", () => {
  assert.deepEqual(Object.keys(root).sort(), [...ROOT_RUNTIME_EXPORTS].sort());
});
