/**
 * The crash harness at soak size: `npx tsx scripts/crash-soak.ts [kills=1000] [lanes=3] [seed]`.
 * Children append with durability "fsync" and are SIGKILLed at random moments; after every kill the
 * file must open untouched, hold every acknowledged entry whole, and take the next append (see
 * test/durability/crash-harness.ts). Exits non-zero at the first broken promise, with the seed to
 * reproduce it.
 */
import { runCrashCycles } from "../test/durability/crash-harness.js";
import { tempDir } from "../test/durability/support.js";

const kills = Number(process.argv[2] ?? 1000);
const lanes = Number(process.argv[3] ?? 3);
const seed = Number(process.argv[4] ?? Date.now() % 1_000_000);
const { dir, cleanup } = tempDir("crash-soak");
const started = Date.now();
console.log(`crash soak: ${kills} kills, ${lanes} lanes, seed ${seed}, files in ${dir}`);
try {
  const stats = await runCrashCycles({
    dir,
    kills,
    lanes,
    seed,
    onKill: (s) => {
      if (s.kills % 50 === 0) {
        const rate = s.kills / ((Date.now() - started) / 1000);
        console.log(
          `${s.kills} kills, ${s.acked} acked, ${s.tornTails} torn tails kept, ${rate.toFixed(1)} kills/s`,
        );
      }
    },
  });
  console.log(JSON.stringify(stats, null, 2));
  console.log(`passed in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  cleanup();
} catch (error) {
  console.error(`FAILED (seed ${seed}; files kept in ${dir}):`);
  console.error(error);
  process.exitCode = 1;
}
