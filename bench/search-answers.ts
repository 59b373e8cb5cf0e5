/**
 * `--answers FILE` of the search benches: the hits of every query, kept in FILE under the index's
 * name the first time, compared with it on later runs (so a speed change is shown to answer the
 * same: content and order, scores included). Differences are printed and make the exit code 1.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { isDeepStrictEqual } from "node:util";

type Answers = Record<string, unknown>;

/** Records or checks `answers` (by query) of `index`; returns how many queries differ. */
export function checkAnswers(file: string | undefined, index: string, answers: Answers): number {
  if (file === undefined) return 0;
  const kept = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Record<string, Answers>) : {};
  const before = kept[index];
  if (before === undefined) {
    kept[index] = answers;
    writeFileSync(file, JSON.stringify(kept));
    console.log(`  answers of ${Object.keys(answers).length} queries kept in ${file} (${index})`);
    return 0;
  }
  let differ = 0;
  for (const [query, hits] of Object.entries(answers)) {
    if (isDeepStrictEqual(before[query], hits)) continue;
    differ++;
    console.log(`  ❌ answers differ for ${JSON.stringify(query)}:`);
    console.log(`     before ${JSON.stringify(before[query]).slice(0, 600)}`);
    console.log(`     now    ${JSON.stringify(hits).slice(0, 600)}`);
  }
  console.log(
    differ === 0
      ? `  answers: the same as kept in ${file} (${index}, ${Object.keys(answers).length} queries)`
      : `  answers: ${differ} queries differ from ${file} (${index})`,
  );
  if (differ > 0) process.exitCode = 1;
  return differ;
}
