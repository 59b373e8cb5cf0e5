/**
 * `npm run bench:search-suite`: search and stats over 2,000 sessions / 1M entries (issue 18) alone,
 * put in place in docs/benchmarks.md (its targets and its section); every other figure stays as
 * the last `npm run bench` wrote it. `--quick` is a smoke run that writes nothing. The corpora stay
 * under SESSIONTREE_BENCH_SEARCH_DIR when it is set (reused by the next run), else in a temp folder.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { withSearch } from "./search-doc.js";
import { measureSearchSuite } from "./search-suite.js";

const DOC = "docs/benchmarks.md";
const quick = process.argv.includes("--quick");
const started = Date.now();
const log = (message: string) =>
  process.stderr.write(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${message}\n`);

const root = mkdtempSync(join(tmpdir(), "sessiontree-bench-search-"));
try {
  const search = await measureSearchSuite(root, { quick, log });
  process.stdout.write(`${search.targets.join("\n")}\n\n${search.markdown.join("\n")}\n`);
  if (quick) log("quick run: docs/benchmarks.md left as is");
  else {
    writeFileSync(DOC, withSearch(readFileSync(DOC, "utf8"), search));
    log("wrote the search targets and section of docs/benchmarks.md");
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
