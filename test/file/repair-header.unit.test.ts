import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { repairFile } from "../../src/file/repair.js";
import { SessionFile } from "../../src/file/session-file.js";

const dir = mkdtempSync(join(tmpdir(), "sessiontree-repair-header-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const user = (text: string) => ({ role: "user", content: text, timestamp: 0 });

test("a header rebuilt for a file whose first entry has no timestamp as text gets one", () => {
  for (const [i, [name, timestamp]] of (
    [
      ["number", 1767225600000],
      ["missing", undefined],
    ] as const
  ).entries()) {
    const path = join(dir, `2026-01-01T00-00-00-000Z_0195f0a0-0000-7000-8000-00000000000${i}.jsonl`);
    const lines = [
      { type: "message", id: "u1", parentId: null, timestamp, message: user("first") },
      {
        type: "message",
        id: "u2",
        parentId: "u1",
        timestamp: "2026-01-01T00:00:02.000Z",
        message: user("next"),
      },
    ];
    writeFileSync(path, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
    repairFile(path);
    const header = JSON.parse(readFileSync(path, "utf8").split("\n")[0] as string) as { timestamp: unknown };
    assert.equal(typeof header.timestamp, "string", name);
    assert.ok(!Number.isNaN(Date.parse(header.timestamp as string)), name);
    const file = SessionFile.open(path);
    assert.deepEqual(
      file.tree.getBranch().map((e) => e.id),
      ["u1", "u2"],
      name,
    );
    file.close();
  }
});
