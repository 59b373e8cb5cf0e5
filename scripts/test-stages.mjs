// Which stage each test file runs in: the one place that says so (scripts/test.mjs runs them).
//
//   unit  in-process and quick: core, format, the file layer, stores (PostgreSQL included), session,
//         agent, server routes, viewer app; each file at most about 6 s of CPU alone (measure with
//         scripts/time-tests.mjs). Runs first, with a short timeout; a failure stops the run there.
//   e2e   whatever spawns processes, a browser or tmux, kills writers, fuzzes, or runs long
//         concurrency: minutes of wall time, the long timeout.
//
// A file named `*.e2e.test.ts` is e2e by its name, one named `*.unit.test.ts` unit by its name: new
// tests named so need no entry here. Every other
// file must match exactly one pattern below (checked on every run), so a new file in a folder that
// mixes both stages fails loudly until someone decides where it goes. Patterns are paths from the
// repository root; `*` stays inside one folder, `**` crosses folders.

export const E2E_SUFFIX = ".e2e.test.ts";
export const UNIT_SUFFIX = ".unit.test.ts";

export const STAGES = {
  unit: {
    // Node 20 applies --test-timeout to each file as a whole (newer Node: to each test). A minute
    // is ten times a unit file's CPU alone: room for a loaded machine, and a hang still ends.
    timeoutMs: 60_000,
    patterns: [
      "test/*.test.ts",
      "test/core/**/*.test.ts",
      "test/format/**/*.test.ts",
      "test/perf/**/*.test.ts",
      "test/agent/agent-session.test.ts",
      "test/agent/compaction.test.ts",
      "test/agent/convert.test.ts",
      "test/agent/permissions.test.ts",
      "test/agent/providers.test.ts",
      "test/cli/describe.test.ts",
      "test/durability/failed-append.test.ts",
      "test/durability/file-stamp.test.ts",
      "test/durability/header-damage.test.ts",
      "test/durability/migrate.test.ts",
      "test/durability/truncate.test.ts",
      "test/server/authorization.test.ts",
      "test/server/deletion.test.ts",
      "test/server/jwt.test.ts",
      "test/server/migrations.test.ts",
      "test/server/openapi.test.ts",
      "test/server/routes.test.ts",
      "test/server/adversarial.test.ts",
      "test/session/cross-read.test.ts",
      "test/session/invariants.test.ts",
      "test/session/list.test.ts",
      "test/session/pi-behaviour-files.test.ts",
      "test/session/pi-behaviour-tree.test.ts",
      "test/session/resume-open.test.ts",
      "test/store/jsonl-interop.test.ts",
      "test/store/jsonl.test.ts",
      "test/store/memory.test.ts",
      "test/store/migrations.test.ts",
      "test/store/postgres-plans.test.ts",
      "test/store/postgres.test.ts",
      "test/store/sqlite.test.ts",
      "test/viewer/app.test.ts",
      "test/viewer/bundle.test.ts",
      "test/viewer/layout.test.ts",
    ],
  },
  e2e: {
    timeoutMs: 600_000,
    patterns: [
      `**/*${E2E_SUFFIX}`,
      // a tmux terminal running `sessiontree chat`; an agent SIGKILLed mid-turn and resumed
      "test/agent/chat-tmux.test.ts",
      "test/agent/resume-crash.test.ts",
      // the CLI tests run the command in a child process (tsx start-up per scenario)
      "test/cli/bin.test.ts",
      "test/cli/fsck.test.ts",
      "test/cli/import.test.ts",
      "test/cli/lazy-load.test.ts",
      "test/cli/read.test.ts",
      "test/cli/write.test.ts",
      // writers in 8 processes, SIGKILL cycles, the fuzz worker, leases and locks across processes,
      // and the fuzz corpus through fsck and repair
      "test/durability/concurrent.test.ts",
      "test/durability/crash.test.ts",
      "test/durability/fsck-repair.test.ts",
      "test/durability/fuzz.test.ts",
      "test/durability/lease.test.ts",
      "test/durability/locking-mode.test.ts",
      // the CLI against a live server, several server processes on one database, long request storms
      "test/server/cli.test.ts",
      "test/server/concurrency.test.ts",
      "test/server/hostile.test.ts",
      "test/server/multi-instance.test.ts",
      // seeded random operation sequences, ours against pi's, compared at every step
      "test/session/differential.test.ts",
      // two writer processes on one SQLite file / PostgreSQL session
      "test/store/postgres-concurrency.test.ts",
      "test/store/sqlite-concurrency.test.ts",
      // Chromium, and the `view` command's own server process
      "test/viewer/browser.test.ts",
      "test/viewer/view-command.test.ts",
    ],
  },
};

/** A pattern as a regular expression over "/"-separated paths. */
function globToRegExp(pattern) {
  let source = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (pattern.startsWith("**/", i)) {
      source += "(?:.*/)?";
      i += 2;
    } else if (c === "*") source += "[^/]*";
    else source += c.replace(/[.+?^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${source}$`);
}

const compiled = Object.fromEntries(
  Object.entries(STAGES).map(([stage, { patterns }]) => [
    stage,
    patterns.map((pattern) => ({ pattern, regexp: globToRegExp(pattern) })),
  ]),
);

/**
 * Sorts test files ("/"-separated, from the repository root) into stages. `problems` names each file
 * in no stage or in two, and each pattern that matches nothing (a renamed or deleted file).
 */
export function classify(files) {
  const stages = Object.fromEntries(Object.keys(STAGES).map((stage) => [stage, []]));
  const problems = [];
  const used = new Set();
  for (const file of files) {
    if (file.endsWith(E2E_SUFFIX)) {
      stages.e2e.push(file);
      continue;
    }
    if (file.endsWith(UNIT_SUFFIX)) {
      stages.unit.push(file);
      continue;
    }
    const hits = Object.entries(compiled).flatMap(([stage, patterns]) =>
      patterns.filter(({ regexp }) => regexp.test(file)).map(({ pattern }) => ({ stage, pattern })),
    );
    for (const hit of hits) used.add(hit.pattern);
    const inStages = [...new Set(hits.map((hit) => hit.stage))];
    if (inStages.length === 1) stages[inStages[0]].push(file);
    else if (inStages.length === 0) {
      problems.push(
        `${file} is in no test stage: add it to scripts/test-stages.mjs, or name it *${UNIT_SUFFIX} or *${E2E_SUFFIX}`,
      );
    } else {
      const where = hits.map((hit) => `${hit.stage} (${hit.pattern})`).join(", ");
      problems.push(`${file} is in more than one test stage: ${where}`);
    }
  }
  for (const [stage, patterns] of Object.entries(compiled)) {
    for (const { pattern } of patterns) {
      if (!used.has(pattern) && !pattern.endsWith(E2E_SUFFIX)) {
        problems.push(`scripts/test-stages.mjs: ${stage} pattern ${pattern} matches no test file`);
      }
    }
  }
  return { stages, problems };
}
