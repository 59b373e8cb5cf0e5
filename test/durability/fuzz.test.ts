import assert from "node:assert/strict";
import { after, test } from "node:test";
import { Worker } from "node:worker_threads";
import { tempDir } from "./support.js";

const SEED = 20261202;
const CASES = 2000;
/** No single open of a mutated file (at most a few MB) may take this long: past it, it is a hang. */
const CASE_BUDGET_MS = 10_000;

const { dir, cleanup } = tempDir("fuzz");
after(cleanup);

interface Failure {
  i: number;
  applied: string[];
  saved: string;
  message: string;
}

/** Starts the fuzz worker under tsx (workers do not inherit the loader) and watches each case's time. */
function runFuzz(
  seed: number,
  cases: number,
): Promise<{ totals: Record<string, unknown>; failures: Failure[] }> {
  const target = new URL("./fuzz/fuzz-worker.ts", import.meta.url).href;
  const tsxApi = import.meta.resolve("tsx/esm/api");
  const source = `import(${JSON.stringify(tsxApi)}).then((api) => { api.register(); return import(${JSON.stringify(target)}); })`;
  const worker = new Worker(source, { eval: true, workerData: { seed, cases, dir } });
  const failures: Failure[] = [];
  let current = { i: -1, since: performance.now() };
  return new Promise((resolve, reject) => {
    const watchdog = setInterval(() => {
      if (current.i >= 0 && performance.now() - current.since > CASE_BUDGET_MS) {
        clearInterval(watchdog);
        void worker.terminate();
        reject(new Error(`fuzz case ${current.i} (seed ${seed}) ran over ${CASE_BUDGET_MS} ms: a hang`));
      }
    }, 250);
    worker.on(
      "message",
      (message: { type: string; i: number; totals?: Record<string, unknown> } & Failure) => {
        if (message.type === "start") current = { i: message.i, since: performance.now() };
        else if (message.type === "done") current = { i: -1, since: performance.now() };
        else if (message.type === "fail") failures.push(message);
        else if (message.type === "end") {
          clearInterval(watchdog);
          resolve({ totals: message.totals ?? {}, failures });
        }
      },
    );
    worker.on("error", (error) => {
      clearInterval(watchdog);
      reject(error);
    });
  });
}

test(`${CASES} randomly damaged session files: never a crash or a hang, every intact line recovered`, async () => {
  const { totals, failures } = await runFuzz(SEED, CASES);
  console.log(`fuzz: ${JSON.stringify(totals)}`);
  assert.deepEqual(
    failures
      .slice(0, 5)
      .map((f) => `case ${f.i} [${f.applied.join(", ")}] saved at ${f.saved}: ${f.message}`),
    [],
    `${failures.length} of ${CASES} cases broke the promise`,
  );
  assert.equal((totals.opened as number) + (totals.refused as number), CASES);
  // The mutations must leave most files openable, or the intact-line check would check nothing.
  assert.ok((totals.opened as number) > CASES / 2, `only ${totals.opened} files opened`);
  assert.ok(
    (totals.intactChecked as number) > CASES * 5,
    `only ${totals.intactChecked} intact lines checked`,
  );
});
