// A node:test reporter that prints nothing as it goes and, at the end, one JSON line: the runner's
// own totals (tests, pass, fail, …) and the files with a failure. scripts/test.mjs runs it beside
// the usual reporter, for its per-stage summary and to refuse a stage that ran zero tests.
export default async function* summary(source) {
  const totals = {};
  const failedFiles = new Set();
  for await (const event of source) {
    // A failing todo test is expected to fail: the runner does not count it, nor do we.
    if (event.type === "test:fail" && event.data.file && !event.data.todo) failedFiles.add(event.data.file);
    if (event.type === "test:diagnostic" && event.data.nesting === 0) {
      const match = /^(\w+) ([\d.]+)$/.exec(event.data.message);
      if (match) totals[match[1]] = Number(match[2]);
    }
  }
  yield `${JSON.stringify({ ...totals, failedFiles: [...failedFiles].sort() })}\n`;
}
