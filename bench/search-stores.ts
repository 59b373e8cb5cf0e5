// Full-text search benchmark: a corpus of sessions (default 2,000 × 500 = 1M entries: prose, code,
// tool output with paths and identifiers, tool calls) in SQLite and PostgreSQL, then 24 queries
// (rare and common words, identifiers and their pieces, prefixes, paths, phrases, no match), each
// run once to warm and then timed; median and p95 of the warm runs, and the index size.
//   npm run bench:search-stores -- [--sessions 2000] [--per 500] [--rounds 5] [--only sqlite|pg]
//     [--sqlite-db /tmp/search-1m.db] [--pg URL] [--pg-db URL] [--reindex] [--answers FILE]
// --sqlite-db / --pg-db keep the corpus: built when the database is empty, reused as it is after.
// --reindex drops the search index of a kept corpus and rebuilds it from the stored entries with
// the code as it is now (as a database migrating to schema step 3 would), timed.
// --answers FILE keeps every query's hits (limit 20 and 200) in FILE, or checks them against it
// (bench/search-answers.ts): the same corpus must answer the same after a change.
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import type { SessionEntry } from "../src/core/entry.js";
import { PostgresStore } from "../src/store/postgres/index.js";
import { SqliteStore } from "../src/store/sqlite/index.js";
import type { SessionStore } from "../src/store/store.js";
import { freshDatabase } from "../test/store/pg-database.js";
import { checkAnswers } from "./search-answers.js";

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i++) {
  const key = process.argv[i] ?? "";
  const value = process.argv[i + 1];
  if (value === undefined || value.startsWith("--")) args.set(key, "true");
  else {
    args.set(key, value);
    i++;
  }
}
const SESSIONS = Number(args.get("--sessions") ?? 2000);
const PER = Number(args.get("--per") ?? 500);
const ROUNDS = Number(args.get("--rounds") ?? 5);
const ONLY = args.get("--only");
const SQLITE_DB = args.get("--sqlite-db");
const PG_DB = args.get("--pg-db");
const REINDEX = args.get("--reindex") === "true";
const ANSWERS = args.get("--answers");
const PG_URL = args.get("--pg") ?? process.env.SESSIONTREE_TEST_PG_URL;
const OWNER = "bench-user";

/** Deterministic pseudo-random numbers (mulberry32), so every backend gets the same corpus. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Common English and code words first (the head of the Zipf curve), then a long synthetic tail. */
const COMMON = `the of and to a in is it you that he was for on are with as i his they be at one have this
from or had by not word but what some we can out other were all there when up use your how said an each
she which do their time if will way about many then them write would like so these her long make thing
see him two has look more day could go come did number sound no most people my over know water than call
first who may down side been now find function return const let value error file line test type string
import export class interface async await true false null undefined new this config session entry store
search index query branch leaf tree node path read write append create delete update list parse build run
server client request response status json array object map set promise buffer stream event handler
module package version install debug warning info trace stack timeout retry cache token user owner`
  .split(/\s+/)
  .filter(Boolean);
/** Letters weighted as in English text, so synthetic words share letters about as real words do. */
const LETTERS =
  "eeeeeeeeeeeettttttttaaaaaaaaooooooooiiiiiiinnnnnnnsssssshhhhhhrrrrrrddddllllcccuuummmwwffggyyppbbvkjxqz";
const rand = random(42);
const WORDS = [
  ...COMMON,
  ...Array.from({ length: 20_000 }, () =>
    Array.from(
      { length: 3 + Math.floor(rand() * 7) },
      () => LETTERS[Math.floor(rand() * LETTERS.length)],
    ).join(""),
  ),
];
const TAIL = COMMON.length;
const TAIL_WORDS = WORDS.slice(TAIL);
/** camelCase identifiers from tail words: what code and tool output are full of. */
const IDENTS = Array.from(
  { length: 3000 },
  (_, i) =>
    `${WORDS[TAIL + i * 3]}${cap(WORDS[TAIL + i * 3 + 1] ?? "")}${cap(WORDS[TAIL + i * 3 + 2] ?? "")}`,
);
const SNAKES = IDENTS.slice(0, 500).map((id) => id.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`));
const DIRS = ["src", "test", "lib", "docs", "scripts", "src/store", "src/server/routes", "packages/core/src"];
function cap(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}
function pick<T>(list: readonly T[], r: () => number): T {
  return list[Math.floor(list.length * r() ** 3)] as T;
}
function pathOf(r: () => number): string {
  return `${pick(DIRS, r)}/${pick(TAIL_WORDS, r)}/${pick(IDENTS, r)}.${r() < 0.7 ? "ts" : "md"}`;
}
function sentence(r: () => number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) {
    const x = r();
    out.push(x < 0.08 ? pick(IDENTS, r) : x < 0.1 ? `\`${pathOf(r)}\`` : pick(WORDS, r));
  }
  return `${cap(out.join(" "))}.`;
}
function prose(r: () => number, sentences: number): string {
  return Array.from({ length: sentences }, () => sentence(r, 6 + Math.floor(r() * 14))).join(" ");
}
function code(r: () => number, lines: number): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    const [a, b, c] = [pick(IDENTS, r), pick(IDENTS, r), pick(SNAKES, r)];
    const kind = Math.floor(r() * 5);
    if (kind === 0) out.push(`export function ${a}(${c}: string): ${cap(pick(WORDS, r))} {`);
    else if (kind === 1) out.push(`  const ${c} = await ${b}(${pick(WORDS, r)}, "${pick(WORDS, r)}");`);
    else if (kind === 2) out.push(`  if (!${c}) throw new Error("${sentence(r, 5)}");`);
    else if (kind === 3) out.push(`  return ${a}.${b}(${c});`);
    else out.push(`}  // ${sentence(r, 8)}`);
  }
  return out.join("\n");
}
function toolOutput(r: () => number): string {
  const x = r();
  if (x < 0.4) return code(r, 5 + Math.floor(r() * 40));
  if (x < 0.7)
    return Array.from(
      { length: 3 + Math.floor(r() * 20) },
      () => `${pathOf(r)}:${1 + Math.floor(r() * 400)}: ${sentence(r, 4 + Math.floor(r() * 8))}`,
    ).join("\n");
  return `${prose(r, 2)}\n${Array.from({ length: 2 + Math.floor(r() * 10) }, () => `  ${pick(["ok", "PASS", "FAIL", "warn", "info"], r)} ${pick(IDENTS, r)} (${Math.floor(r() * 900)} ms)`).join("\n")}`;
}

function sessionEntries(index: number): SessionEntry[] {
  const r = random(1000 + index);
  const entries: SessionEntry[] = [];
  let parent: string | null = null;
  let clock = Date.parse("2026-01-01T00:00:00Z") + index * 3_600_000;
  for (let i = 0; i < PER; i++) {
    const id = `e${index}-${i}`;
    clock += 1000;
    const timestamp = new Date(clock).toISOString();
    const role = i % 4;
    let message: Record<string, unknown>;
    if (role === 0) message = { role: "user", content: prose(r, 1 + Math.floor(r() * 3)), timestamp: clock };
    else if (role === 1 || role === 3) {
      const content =
        role === 1
          ? [
              {
                type: "toolCall",
                id: `c${i}`,
                name: r() < 0.5 ? "read" : "grep",
                arguments: { path: pathOf(r), pattern: pick(IDENTS, r) },
              },
            ]
          : [{ type: "text", text: prose(r, 2 + Math.floor(r() * 6)) }];
      message = {
        role: "assistant",
        content,
        api: "x",
        provider: "p",
        model: "m",
        usage: {},
        stopReason: "stop",
        timestamp: clock,
      };
    } else {
      message = {
        role: "toolResult",
        toolCallId: `c${i - 1}`,
        toolName: "read",
        content: [{ type: "text", text: toolOutput(r) }],
        isError: false,
        timestamp: clock,
      };
    }
    // Every 50th entry forks from its grandparent: abandoned branches exist.
    const parentId: string | null =
      i % 50 === 49 && entries.length > 2 ? (entries[entries.length - 2]?.id ?? null) : parent;
    entries.push({ type: "message", id, parentId, timestamp, message } as unknown as SessionEntry);
    parent = id;
  }
  return entries;
}

const ident = (i: number) => IDENTS[i] ?? "";
/** The query mix: [label, query]. Pieces are the second word of an identifier, in its case. */
const QUERIES: Array<[string, string]> = [
  ["very common word", "the"],
  ["common word", "function"],
  ["common code word", "return"],
  ["mid word", WORDS[TAIL + 40] ?? ""],
  ["rare word", WORDS[TAIL + 5000] ?? ""],
  ["very rare word", WORDS[TAIL + 19_000] ?? ""],
  ["common identifier", ident(0)],
  ["identifier", ident(10)],
  ["rare identifier", ident(2500)],
  ["identifier piece", cap(WORDS[TAIL + 31] ?? "")],
  ["rare identifier piece", cap(WORDS[TAIL + 7000] ?? "")],
  ["snake_case", SNAKES[3] ?? ""],
  ["prefix", (WORDS[TAIL + 2] ?? "").slice(0, 4)],
  ["path", `src/store/${WORDS[TAIL + 1]}`],
  ["file name", `${ident(2)}.ts`],
  ["two common words", "return value"],
  ["common + rare", `the ${WORDS[TAIL + 5000]}`],
  ["two mid words", `${WORDS[TAIL + 100]} ${WORDS[TAIL + 200]}`],
  ["phrase", '"throw new error"'],
  ["rare phrase", `"${WORDS[TAIL + 300]} ${WORDS[TAIL + 301]}"`],
  ["identifier + word", `${ident(5)} const`],
  ["code phrase", `"function ${ident(1)}"`],
  ["no match", "nothingmatchesthis"],
  ["no match, common + none", "the zzqqxxyy"],
];

/**
 * The corpus, fast: sessions created by the store, their entries written straight into `entries`
 * (the store's append path takes minutes per 10k entries on a busy machine), every session then put
 * in `search_backlog`, so the store's next open indexes them with its own code (the migration path).
 */
async function createSessions(store: SessionStore): Promise<void> {
  await store.init();
  await store.createSession(OWNER, { id: "s0", cwd: "/bench" });
  await store.close();
}

/** Sessions s1… as copies of the row of s0 (only the id differs). */
const COPY_SESSIONS = (numbered: string) => `INSERT INTO sessions (owner, id, revision, leaf_id, name, cwd,
    parent_session, created_at, modified_at, deleted_at, header, entry_count, message_count, first_message, search_text)
  SELECT owner, 's' || n, revision, leaf_id, name, cwd, parent_session, created_at, modified_at, deleted_at, header,
    entry_count, message_count, first_message, search_text
  FROM sessions, ${numbered} WHERE id = 's0'`;

function entryRows(s: number): Array<[string, number, string | null, string, string]> {
  return sessionEntries(s).map((e, seq) => [e.id, seq, e.parentId, e.type, JSON.stringify(e)]);
}

async function loadSqlite(path: string): Promise<void> {
  await createSessions(new SqliteStore({ path }));
  const db = new Database(path);
  db.exec(
    COPY_SESSIONS(
      `(WITH RECURSIVE c (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < ${SESSIONS - 1}) SELECT n FROM c)`,
    ),
  );
  const insert = db.prepare(
    "INSERT INTO entries (session_pk, id, seq, parent_id, type, payload) VALUES ((SELECT pk FROM sessions WHERE id = ?), ?, ?, ?, ?, ?)",
  );
  const leaf = db.prepare("UPDATE sessions SET leaf_id = ?, entry_count = ? WHERE id = ?");
  for (let s = 0; s < SESSIONS; s++) {
    const rows = entryRows(s);
    db.transaction(() => {
      for (const row of rows) insert.run(`s${s}`, ...row);
      leaf.run(rows.at(-1)?.[0] ?? null, rows.length, `s${s}`);
    })();
    if (s % 100 === 99) process.stdout.write(`  ${s + 1}/${SESSIONS} sessions\r`);
  }
  db.close();
  dropSqliteIndex(path);
}

async function loadPostgres(url: string): Promise<void> {
  await createSessions(new PostgresStore({ connectionString: url }));
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(COPY_SESSIONS(`generate_series(1, ${SESSIONS - 1}) AS n`));
    for (let s = 0; s < SESSIONS; s++) {
      const rows = entryRows(s);
      const cols = [0, 1, 2, 3, 4].map((c) => rows.map((row) => row[c]));
      await client.query(
        `INSERT INTO entries (session_pk, id, seq, parent_id, type, payload)
         SELECT (SELECT pk FROM sessions WHERE id = $1), u.id, u.seq, u.parent_id, u.type, u.payload
         FROM unnest($2::text[], $3::integer[], $4::text[], $5::text[], $6::json[]) AS u (id, seq, parent_id, type, payload)`,
        [`s${s}`, ...cols],
      );
      await client.query("UPDATE sessions SET leaf_id = $1, entry_count = $2 WHERE id = $3", [
        rows.at(-1)?.[0] ?? null,
        rows.length,
        `s${s}`,
      ]);
      if (s % 100 === 99) process.stdout.write(`  ${s + 1}/${SESSIONS} sessions\r`);
    }
  } finally {
    await client.end();
  }
  await dropPostgresIndex(url);
}

async function dropPostgresIndex(url: string): Promise<void> {
  await pgQuery(
    url,
    "DROP TABLE IF EXISTS search_entries, search_backlog CASCADE; DELETE FROM sessiontree_migrations WHERE version = 3",
  );
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

interface Timing {
  median: number;
  p95: number;
  /** This process's CPU per query (median, p95): the SQLite store's whole work, little of PostgreSQL's. */
  cpu: { median: number; p95: number };
  perQuery: Array<{ label: string; query: string; hits: number; median: number }>;
}

/** Every query once to warm, then ROUNDS rounds over the whole list (so a slow moment hits all alike). */
async function timeQueries(store: SessionStore): Promise<Timing> {
  const times = QUERIES.map(() => [] as number[]);
  const cpu: number[] = [];
  const hits: number[] = [];
  for (const [, query] of QUERIES) hits.push((await store.search(OWNER, query, { limit: 20 })).length);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, [, query]] of QUERIES.entries()) {
      const started = performance.now();
      const usage = process.cpuUsage();
      await store.search(OWNER, query, { limit: 20 });
      times[i]?.push(performance.now() - started);
      const spent = process.cpuUsage(usage);
      cpu.push((spent.user + spent.system) / 1000);
    }
  }
  const all = times.flat().sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  return {
    median: quantile(all, 0.5),
    p95: quantile(all, 0.95),
    cpu: { median: quantile(cpu, 0.5), p95: quantile(cpu, 0.95) },
    perQuery: QUERIES.map(([label, query], i) => ({
      label,
      query,
      hits: hits[i] ?? 0,
      median: quantile(
        (times[i] ?? []).sort((a, b) => a - b),
        0.5,
      ),
    })),
  };
}

/** Every query's hits at two limits, for `--answers`. */
async function answersOf(store: SessionStore): Promise<Record<string, unknown>> {
  const answers: Record<string, unknown> = {};
  for (const [, query] of QUERIES)
    for (const limit of [20, 200])
      answers[`${query} (limit ${limit})`] = await store.search(OWNER, query, { limit });
  return answers;
}

function report(name: string, setup: string, sizes: string, result: Timing): void {
  console.log(`\n${name}: ${setup}`);
  console.log(`  ${sizes}`);
  console.log(
    `  warm query: median ${result.median.toFixed(1)} ms, p95 ${result.p95.toFixed(1)} ms (${QUERIES.length} queries × ${ROUNDS}); this process's CPU: median ${result.cpu.median.toFixed(1)} ms, p95 ${result.cpu.p95.toFixed(1)} ms`,
  );
  for (const q of result.perQuery)
    console.log(
      `    ${q.median.toFixed(1).padStart(8)} ms  ${String(q.hits).padStart(3)} hits  ${q.label.padEnd(24)} ${q.query}`,
    );
}

const mb = (bytes: unknown) => `${(Number(bytes) / 1e6).toFixed(0)} MB`;

/** Drops SQLite's search tables and forgets step 3, so the next open rebuilds the index. */
function dropSqliteIndex(path: string): void {
  const db = new Database(path);
  const tables = db
    .prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'search%' AND sql LIKE 'CREATE VIRTUAL%'",
    )
    .all() as Array<{ name: string }>;
  for (const { name } of tables) db.exec(`DROP TABLE ${name}`);
  const plain = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'search%'")
    .all() as Array<{ name: string }>;
  for (const { name } of plain) db.exec(`DROP TABLE ${name}`);
  db.exec("DELETE FROM sessiontree_migrations WHERE version = 3");
  db.close();
}

async function benchSqlite(): Promise<void> {
  const dir = SQLITE_DB ? null : mkdtempSync(join(tmpdir(), "st-bench-search-"));
  const path = SQLITE_DB ?? join(dir ?? "", "s.db");
  try {
    const fresh = !existsSync(path);
    if (fresh) await loadSqlite(path);
    else if (REINDEX) dropSqliteIndex(path);
    const started = performance.now();
    const opened = new SqliteStore({ path });
    await opened.init();
    await opened.close();
    const seconds = (performance.now() - started) / 1000;
    const setup = `${fresh ? "corpus built" : "kept corpus"} ${path}${fresh || REINDEX ? `, index built at open in ${seconds.toFixed(1)} s` : ""}`;
    const reopened = new SqliteStore({ path });
    await reopened.init();
    const db = new Database(path, { readonly: true });
    const count = db.prepare("SELECT count(*) AS n FROM entries").get() as { n: number };
    let sizes = `${count.n} entries; database ${mb(statSync(path).size)}`;
    try {
      const row = db.prepare("SELECT sum(pgsize) AS bytes FROM dbstat WHERE name LIKE 'search%'").get() as {
        bytes: number;
      };
      sizes += `, search tables ${mb(row.bytes)}`;
    } catch {
      sizes += " (dbstat not compiled in: no per-table size)";
    }
    db.close();
    report("sqlite", setup, sizes, await timeQueries(reopened));
    if (ANSWERS) checkAnswers(ANSWERS, `sqlite ${SESSIONS}x${PER}`, await answersOf(reopened));
    await reopened.close();
  } finally {
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

async function pgQuery(url: string, sql: string): Promise<Array<Record<string, unknown>>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

async function benchPostgres(base: string): Promise<void> {
  process.env.SESSIONTREE_TEST_PG_URL = base;
  const database = PG_DB ? { url: PG_DB, drop: async () => {} } : await freshDatabase("bench_search");
  try {
    const stored = await pgQuery(database.url, "SELECT to_regclass('entries') IS NOT NULL AS present");
    const kept = stored[0]?.present === true;
    if (!kept) await loadPostgres(database.url);
    else if (REINDEX) await dropPostgresIndex(database.url);
    const started = performance.now();
    const opened = new PostgresStore({ connectionString: database.url });
    await opened.init();
    await opened.close();
    const seconds = (performance.now() - started) / 1000;
    const setup = `${kept ? "kept corpus" : "corpus built"}${!kept || REINDEX ? `, index built at open in ${seconds.toFixed(1)} s` : ""}`;
    if (!kept || REINDEX) await pgQuery(database.url, "VACUUM ANALYZE");
    const store = new PostgresStore({ connectionString: database.url });
    await store.init();
    const [r = {}] = await pgQuery(
      database.url,
      `SELECT (SELECT count(*) FROM entries) AS entries, pg_relation_size('search_entries') AS heap,
        pg_total_relation_size('search_entries') AS total, pg_database_size(current_database()) AS db,
        (SELECT string_agg(indexrelid::regclass || ' ' || pg_relation_size(indexrelid), ', ')
           FROM pg_index WHERE indrelid = 'search_entries'::regclass) AS indexes`,
    );
    const indexes = String(r.indexes ?? "")
      .split(", ")
      .map((part) => part.replace(/ (\d+)$/, (_, n: string) => ` ${mb(n)}`))
      .join(", ");
    const sizes = `${r.entries} entries; database ${mb(r.db)}, search_entries ${mb(r.total)} in all (table ${mb(r.heap)}; ${indexes})`;
    report("postgres", setup, sizes, await timeQueries(store));
    if (ANSWERS) checkAnswers(ANSWERS, `postgres ${SESSIONS}x${PER}`, await answersOf(store));
    await store.close();
  } finally {
    await database.drop();
  }
}

if (ONLY !== "pg") await benchSqlite();
if (ONLY === "sqlite") process.exit(0);
if (PG_URL) await benchPostgres(PG_URL);
else console.log("\npostgres: skipped (give --pg URL or SESSIONTREE_TEST_PG_URL)");
