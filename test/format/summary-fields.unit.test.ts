import assert from "node:assert/strict";
import { test } from "node:test";
import type { SessionEntry } from "../../src/core/entry.js";
import { SessionTree } from "../../src/core/tree.js";
import { foldListingFields } from "../../src/format/summary-fields.js";

const at = "2026-01-01T00:00:00.000Z";
const info = (id: string, parentId: string | null, fields: Record<string, unknown>) =>
  ({ type: "session_info", id, parentId, timestamp: at, ...fields }) as unknown as SessionEntry;

const EMPTY = { messageCount: 0, firstMessage: "", name: undefined };

/** The name a listing gives and the one the session's tree gives, for the same entries. */
function names(entries: SessionEntry[]): { listed: string | undefined; tree: string | undefined } {
  const tree = new SessionTree();
  for (const entry of entries) tree.load(entry);
  return { listed: foldListingFields(EMPTY, entries, () => "").name, tree: tree.getSessionName() };
}

test("a listing names a session as its tree does: the latest session_info, blank clears", () => {
  const named = info("n1", null, { name: "  Lanterns " });
  assert.deepEqual(names([named]), { listed: "Lanterns", tree: "Lanterns" });
  assert.deepEqual(names([named, info("n2", "n1", { name: " " })]), { listed: undefined, tree: undefined });
  assert.deepEqual(names([named, info("n2", "n1", {})]), { listed: undefined, tree: undefined });
});

test("a malformed session_info (its name not a string) names nothing, in a listing as in the tree", () => {
  const entries = [info("n1", null, { name: "Lanterns" }), info("n2", "n1", { name: 42 })];
  assert.deepEqual(names(entries), { listed: "Lanterns", tree: "Lanterns" });
});
