import assert from "node:assert/strict";
import { after, test } from "node:test";
import { runCrashCycles } from "./crash-harness.js";
import { tempDir } from "./support.js";

const KILLS = 201;
const { dir, cleanup } = tempDir("crash");
after(cleanup);

test(`SIGKILL at random moments, ${KILLS} times: every acknowledged entry survives, the next append works`, async () => {
  const stats = await runCrashCycles({ dir, kills: KILLS, lanes: 3, seed: 20261202 });
  assert.ok(stats.kills >= 200, `only ${stats.kills} kills`);
  // The children did real work between kills, and the parent's own append after a kill ran often.
  assert.ok(stats.acked > stats.kills, `only ${stats.acked} acknowledged entries`);
  assert.ok(stats.parentAppends >= stats.kills / 4, `only ${stats.parentAppends} appends after a kill`);
  assert.equal(stats.tornTailsQuarantined, stats.tornTails);
  console.log(`crash harness: ${JSON.stringify(stats)}`);
});
