import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";

/**
 * The official LangGraph checkpointer validation suite (@langchain/langgraph-checkpoint-validation
 * 1.1.1: put, putWrites, getTuple, list, deleteThread, plus its opt-in getDeltaChannelHistory
 * tests) against SessionTreeSaver over SQLite, run by vitest in a child process.
 */
test("SessionTreeSaver passes @langchain/langgraph-checkpoint-validation", () => {
  const run = spawnSync(
    process.execPath,
    [
      "node_modules/vitest/vitest.mjs",
      "run",
      "--config",
      "test/adapters/fixtures/langgraph-vitest.config.ts",
      "--reporter=json",
    ],
    { encoding: "utf8", env: { ...process.env, NO_COLOR: "1", CI: "1" }, maxBuffer: 64 * 1024 * 1024 },
  );
  const report = JSON.parse(run.stdout.slice(run.stdout.indexOf("{"))) as {
    numTotalTests: number;
    numPassedTests: number;
    numFailedTests: number;
    numPendingTests: number;
    testResults: Array<{ assertionResults: Array<{ fullName: string; status: string }> }>;
  };
  const failed = report.testResults
    .flatMap((file) => file.assertionResults)
    .filter((result) => result.status !== "passed")
    .map((result) => `${result.status}: ${result.fullName}`);
  assert.deepEqual(failed, [], run.stderr);
  assert.equal(run.status, 0, run.stderr);
  assert.equal(report.numFailedTests, 0);
  assert.equal(report.numPendingTests, 0, "no test of the suite is skipped");
  // 726 in 1.1.1 (the list suite alone is a few hundred argument combinations).
  assert.ok(report.numPassedTests >= 700, `only ${report.numPassedTests} tests ran`);
});
