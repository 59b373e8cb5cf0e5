import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import type { CliIO } from "../../src/cli/io.js";
import type { Location } from "../../src/cli/location.js";
import { resolveSession } from "../../src/cli/resolve.js";

describe("naming a session by id prefix", () => {
  const root = mkdtempSync(join(tmpdir(), "sessiontree-resolve-"));
  after(() => rmSync(root, { recursive: true, force: true }));
  const folder = join(root, "sessions", "-work");
  mkdirSync(folder, { recursive: true });
  const file = (id: string) => {
    const path = join(folder, `2026-01-01T00-00-00-000Z_${id}.jsonl`);
    writeFileSync(
      path,
      `${JSON.stringify({ type: "session", version: 3, id, timestamp: "t", cwd: "/work" })}\n`,
    );
    return path;
  };
  const main = file("258c7280-1111-4222-8333-444455556666");
  file("258c7280-1111-4222-8333-444455556666.agent-a1");
  file("258c7280-1111-4222-8333-444455556666.agent-b2");
  const other = file("9f00aa00-1111-4222-8333-444455556666");
  file("9f00bb00-1111-4222-8333-444455556666");
  const location: Location = { root, layout: "sessiontree" };
  const io = { cwd: "/work", env: {} } as CliIO;

  it("a prefix of an imported session's id names it, not its subagents", () => {
    assert.equal(resolveSession(location, "258c7280", io), main);
    assert.match(resolveSession(location, "258c7280-1111-4222-8333-444455556666.agent-a", io), /agent-a1/);
  });

  it("two unrelated sessions sharing a prefix are still ambiguous; a longer prefix picks one", () => {
    assert.throws(() => resolveSession(location, "9f00", io), /matches 2 sessions/);
    assert.equal(resolveSession(location, "9f00aa", io), other);
  });
});
