import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { mayHoldCompaction, PROBE_CHUNK } from "../../src/session/backing/compaction-probe.js";

/** The probe that lets a session without a compaction be read whole at open (indexed-backing.ts). */

const CHUNK = PROBE_CHUNK;
const needle = '"type":"compaction"';

test("finds a compaction line anywhere, also across the probe's read chunks", () => {
  const dir = mkdtempSync(join(tmpdir(), "probe-"));
  try {
    const file = join(dir, "s.jsonl");
    for (const at of [0, 100, CHUNK - 10, CHUNK - 1, CHUNK, 2 * CHUNK - 5, 3 * CHUNK + 7]) {
      const bytes = Buffer.alloc(at + needle.length + 50, "x");
      bytes.write(needle, at);
      writeFileSync(file, bytes);
      assert.equal(mayHoldCompaction(file), true, `at ${at}`);
    }
    writeFileSync(file, Buffer.alloc(3 * CHUNK + 11, "x"));
    assert.equal(mayHoldCompaction(file), false);
    // Inside a JSON string the quotes are escaped: not a compaction line.
    writeFileSync(file, `${JSON.stringify({ type: "message", text: needle })}\n`.repeat(1000));
    assert.equal(mayHoldCompaction(file), false);
    writeFileSync(file, "");
    assert.equal(mayHoldCompaction(file), false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
