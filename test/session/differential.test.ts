import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import { SessionManager } from "../../src/session/session-manager.js";
import { Random } from "../support/random.js";
import { AppendOnlyWatch, assertFilesAgree, crossReads } from "./support/disk-checks.js";
import { OP_NAMES, randomOp } from "./support/ops.js";
import { assertSameSession, IdMap, type Pair } from "./support/pair.js";

/**
 * Our SessionManager and pi 0.73.1's, driven side by side with the same random choices; after
 * every operation both must present the same session (leaf, branch, context, tree, children,
 * labels, name, entry order). On disk, both files are cross-read every few operations.
 */
const SEEDS = 20;
const OPS = 300;
const CROSS_READ_EVERY = 25;
const CWD = "/work/project";

/** What the sequences exercised, so a change in the generator cannot quietly stop testing something. */
const seen = new Map<string, number>();
function record(description: string): string {
  const name = description.split(/[( ]/)[0] as string;
  const key = description.includes("skipped") ? `${name} skipped` : name;
  seen.set(key, (seen.get(key) ?? 0) + 1);
  if (description.includes("off path"))
    seen.set("compaction off path", (seen.get("compaction off path") ?? 0) + 1);
  return description;
}

function runSequence(seed: number, mode: "memory" | "disk"): void {
  const dir = mode === "disk" ? mkdtempSync(join(tmpdir(), "st-diff-")) : "";
  const pair: Pair = {
    ours: mode === "disk" ? SessionManager.create(CWD, join(dir, "ours")) : SessionManager.inMemory(CWD),
    pi: mode === "disk" ? PiSessionManager.create(CWD, join(dir, "pi")) : PiSessionManager.inMemory(CWD),
    ids: new IdMap(),
  };
  const rng = new Random(seed);
  const watch = new AppendOnlyWatch();
  const history: string[] = [];
  try {
    for (let step = 0; step < OPS; step++) {
      history.push(record(randomOp(pair, rng)));
      const where = `seed ${seed} step ${step} after [${history.slice(-6).join("; ")}]`;
      const leaf = pair.ours.getLeafId();
      const entries = pair.ours.getEntries();
      const probe = [
        leaf,
        pair.ours.getLeafEntry()?.parentId,
        ...[0, 1, 2].map(() => entries[rng.int(entries.length)]?.id),
      ];
      assertSameSession(pair.ours, pair.pi, pair.ids, where, {
        probe: probe.filter((id): id is string => typeof id === "string"),
        deep: step % 50 === 49 || step === OPS - 1,
      });
      if (mode === "disk") {
        watch.check(pair.ours.getSessionFile(), where);
        if (step % CROSS_READ_EVERY === CROSS_READ_EVERY - 1) assertFilesAgree(pair, where);
      }
    }
    if (mode === "disk") {
      // End on a rewind with no append after it: the case pi's own files lose.
      const entries = pair.ours.getEntries();
      const target = entries[rng.int(entries.length)]?.id;
      if (target) {
        pair.ours.branch(target);
        pair.pi.branch(pair.ids.pi(target));
        assertSameSession(pair.ours, pair.pi, pair.ids, `seed ${seed} final rewind`, { deep: true });
        assertFilesAgree(pair, `seed ${seed} final rewind`);
      }
    }
  } finally {
    pair.ours.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

test("the comparison itself notices a difference (so agreement means something)", () => {
  const message = { role: "user" as const, content: "same", timestamp: 1 };
  const make = () => {
    const pair: Pair = {
      ours: SessionManager.inMemory(CWD),
      pi: PiSessionManager.inMemory(CWD),
      ids: new IdMap(),
    };
    pair.ids.add(pair.ours.appendMessage(message), pair.pi.appendMessage(message));
    return pair;
  };
  const agreeing = make();
  assertSameSession(agreeing.ours, agreeing.pi, agreeing.ids, "agreeing", { deep: true });
  const label = make();
  label.ours.appendLabelChange(label.ours.getLeafId() as string, "only ours");
  assert.throws(() => assertSameSession(label.ours, label.pi, label.ids, "label"));
  const leaf = make();
  leaf.pi.resetLeaf();
  assert.throws(() => assertSameSession(leaf.ours, leaf.pi, leaf.ids, "leaf"));
  const unmapped = make();
  assert.throws(() => assertSameSession(unmapped.ours, unmapped.pi, new IdMap(), "ids"));
});

for (const mode of ["memory", "disk"] as const) {
  describe(`differential against pi 0.73.1 (${mode})`, () => {
    for (let seed = 1; seed <= SEEDS; seed++) {
      test(`seed ${seed}: ${OPS} random operations agree at every step`, () => runSequence(seed, mode));
    }
    test("every kind of operation was exercised", () => {
      for (const name of [...OP_NAMES, "compaction off path"]) {
        assert.ok((seen.get(name) ?? 0) >= 3, `${name} ran ${seen.get(name) ?? 0} times`);
      }
      seen.clear();
      if (mode === "disk") {
        assert.ok(crossReads.ourFile >= SEEDS * 8, `our files cross-read ${crossReads.ourFile} times`);
        assert.ok(crossReads.piFile >= SEEDS * 8, `pi's files cross-read ${crossReads.piFile} times`);
      }
    });
  });
}
