/**
 * `npm run bench:search`: the local full-text search index over many sessions. Generates sessions
 * (realistic coding-agent text: a Zipf-distributed vocabulary of English words, code identifiers,
 * paths and error codes; tool calls and results; abandoned branches; compactions), builds the index
 * (time and size), then measures warm searches end to end (`searchLocal`: the stat of every file,
 * the query, branch states, snippets read from the files), median and p95 over varied queries, and
 * one search after a file grew.
 *
 *   tsx bench/search.ts [--sessions 2000] [--entries 1000000] [--runs 5] [--dir DIR] [--keep]
 *     [--answers FILE] [--keep-index]
 *
 * `--dir` reuses sessions generated there before (with `--keep`); the index is rebuilt every run
 * unless `--keep-index` (then only brought up to date, as any search does).
 * `--answers FILE` keeps every query's hits (limit 20 and 200, all sessions and one directory's) in
 * FILE, or checks them against it (bench/search-answers.ts): compare runs that rebuilt the index
 * (an index kept across runs has seen the grown file re-read: other rowids, other bm25 totals).
 */
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  truncateSync,
  utimesSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { encodeCwd, sessionsDir } from "../src/file/paths.js";
import { dropSearchIndex, searchLocal, searchLocalDetailed } from "../src/session/search/index.js";
import { checkAnswers } from "./search-answers.js";
import { median } from "./stats.js";

const { values } = parseArgs({
  options: {
    sessions: { type: "string", default: "2000" },
    entries: { type: "string", default: "1000000" },
    runs: { type: "string", default: "5" },
    dir: { type: "string" },
    keep: { type: "boolean", default: false },
    answers: { type: "string" },
    "keep-index": { type: "boolean", default: false },
  },
});
const SESSIONS = Number(values.sessions);
const ENTRIES = Number(values.entries);
const RUNS = Number(values.runs);

class Random {
  constructor(private state: number) {}
  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T;
  }
}

const ENGLISH = `the of and to a in is it you that he was for on are with as I his they be at one have this
from or had by not word but what some we can out other were all there when up use your how said an
each she which do their time if will way about many then them write would like so these her long
make thing see him two has look more day could go come did number sound no most people my over know
water than call first who may down side been now find any new work part take get place made live
where after back little only round man year came show every good me give our under name very through
just form sentence great think say help low line differ turn cause much mean before move right boy old
too same tell does set three want air well also play small end put home read hand port large spell add
even land here must big high such follow act why ask men change went light kind off need house picture
try us again animal point mother world near build self earth father head stand own page should country
found answer school grow study still learn plant cover food sun four between state keep eye never last
let thought city tree cross farm hard start might story saw far sea draw left late run while press
close night real life few north open seem together next white children begin got walk example ease
paper group always music those both mark often letter until mile river car feet care second book carry
took science eat room friend began idea fish mountain stop once base hear horse cut sure watch color
face wood main enough plain girl usual young ready above ever red list though feel talk bird soon body
dog family direct pose leave song measure door product black short numeral class wind question happen
complete ship area half rock order fire south problem piece told knew pass since top whole king space
heard best hour better true during hundred five remember step early hold west ground interest reach
fast verb sing listen six table travel less morning ten simple several vowel toward war lay against
pattern slow center love person money serve appear road map rain rule govern pull cold notice voice
unit power town fine certain fly fall lead cry dark machine note wait plan figure star box noun field
rest correct able pound done beauty drive stood contain front teach week final gave green oh quick
develop ocean warm free minute strong special mind behind clear tail produce fact street inch multiply
nothing course stay wheel full force blue object decide surface deep moon island foot system busy test
record boat common gold possible plane stead dry wonder laugh thousand ago ran check game shape equate
miss brought heat snow tire bring yes distant fill east paint language among`.split(/\s+/);
const CODE = `function const return await async type interface class module package import export error
fix build test lint compile bundle deploy migrate schema query index cache stream buffer parse encode
decode render update delete insert select commit branch merge rebase leaf entry session tree context
token model prompt tool result message summary compaction thinking provider request response header
status config option argument flag retry timeout lock file folder path offset line chunk byte worker
queue event listener handler promise callback server client route endpoint database table column
migration transaction rollback snapshot backup restore archive`.split(/\s+/);
const VERBS = [
  "parse",
  "read",
  "write",
  "load",
  "save",
  "build",
  "render",
  "handle",
  "create",
  "update",
  "resolve",
  "open",
  "close",
  "find",
  "make",
  "check",
];
const NOUNS = [
  "Args",
  "File",
  "Session",
  "Entry",
  "Tree",
  "Index",
  "Stream",
  "Config",
  "Buffer",
  "Header",
  "Request",
  "Response",
  "Token",
  "Context",
  "Options",
  "Leaf",
  "Branch",
  "Cache",
  "Stamp",
  "Chunk",
];

/** The vocabulary, most frequent first: English and code words, then identifiers, paths, codes. */
function vocabulary(random: Random): string[] {
  const words = [...ENGLISH, ...CODE];
  for (const verb of VERBS)
    for (const noun of NOUNS) words.push(`${verb}${noun}`, `${verb}_${noun.toLowerCase()}`);
  for (let i = 0; i < 1500; i++)
    words.push(`src/${random.pick(CODE)}/${random.pick(VERBS)}-${random.pick(CODE)}.ts`);
  for (let i = 0; i < 3000; i++) words.push(`E${random.pick(CODE).toUpperCase()}_${i}`);
  // Shuffle all but the first 300, so rare words are of every kind.
  const head = words.slice(0, 300);
  const tail = words.slice(300);
  for (let i = tail.length - 1; i > 0; i--) {
    const j = Math.floor(random.next() * (i + 1));
    [tail[i], tail[j]] = [tail[j] as string, tail[i] as string];
  }
  return [...head, ...tail];
}

class Zipf {
  private readonly cdf: Float64Array;
  constructor(
    private readonly words: string[],
    private readonly random: Random,
  ) {
    this.cdf = new Float64Array(words.length);
    let total = 0;
    for (let i = 0; i < words.length; i++) this.cdf[i] = total += 1 / (i + 1) ** 1.05;
    for (let i = 0; i < words.length; i++) (this.cdf[i] as number) /= total;
  }
  word(): string {
    const r = this.random.next();
    let lo = 0;
    let hi = this.words.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.cdf[mid] as number) < r) lo = mid + 1;
      else hi = mid;
    }
    return this.words[lo] as string;
  }
  text(chars: number): string {
    const out: string[] = [];
    let length = 0;
    while (length < chars) {
      const word = this.word();
      out.push(word);
      length += word.length + 1;
      if (this.random.next() < 0.08) out.push(this.random.next() < 0.5 ? ".\n" : ",");
    }
    return out.join(" ");
  }
}

const CWDS = Array.from({ length: 20 }, (_, i) => `/home/dev/project-${i}`);

/** One session of about `count` entries: turns of user, assistant + tool call, tool result, answer. */
function writeSessionFile(root: string, index: number, count: number, zipf: Zipf, random: Random): void {
  const cwd = CWDS[index % CWDS.length] as string;
  const dir = join(sessionsDir(root), encodeCwd(cwd));
  mkdirSync(dir, { recursive: true });
  let clock = Date.parse("2026-01-01T00:00:00Z") + index * 3_600_000;
  const id = `s${String(index).padStart(6, "0")}`;
  const lines: string[] = [
    JSON.stringify({ type: "session", version: 3, id, timestamp: new Date(clock).toISOString(), cwd }),
  ];
  let n = 0;
  const entry = (parentId: string | null, fields: Record<string, unknown>): string => {
    const entryId = `${id}-${(n++).toString(36)}`;
    clock += random.int(500, 30_000);
    lines.push(
      JSON.stringify({
        type: "message",
        id: entryId,
        parentId,
        timestamp: new Date(clock).toISOString(),
        ...fields,
      }),
    );
    return entryId;
  };
  let tip: string | null = null;
  let forkAt: string | null = null;
  while (n < count) {
    if (forkAt !== null && random.next() < 0.05) tip = forkAt; // a rewind: the rest is abandoned
    tip = entry(tip, {
      message: {
        role: "user",
        content: [{ type: "text", text: zipf.text(random.int(20, 400)) }],
        timestamp: clock,
      },
    });
    forkAt = tip;
    for (let r = random.int(0, 3); r > 0 && n < count; r--) {
      const tool = random.pick(["read", "bash", "edit", "grep"]);
      tip = entry(tip, {
        message: {
          role: "assistant",
          content: [
            { type: "thinking", thinking: zipf.text(random.int(40, 300)) },
            { type: "text", text: zipf.text(random.int(20, 200)) },
            {
              type: "toolCall",
              id: `c${n}`,
              name: tool,
              arguments: { path: zipf.word(), command: zipf.text(30) },
            },
          ],
          provider: "anthropic",
          model: "claude-sonnet-4-5",
          usage: {},
          stopReason: "toolUse",
          timestamp: clock,
        },
      });
      const size = random.next() < 0.05 ? random.int(5_000, 30_000) : random.int(100, 1_500);
      tip = entry(tip, {
        message: {
          role: "toolResult",
          toolCallId: `c${n}`,
          toolName: tool,
          content: [{ type: "text", text: zipf.text(size) }],
          isError: false,
          timestamp: clock,
        },
      });
    }
    tip = entry(tip, {
      message: {
        role: "assistant",
        content: [{ type: "text", text: zipf.text(random.int(40, 600)) }],
        provider: "anthropic",
        model: "m",
        usage: {},
        stopReason: "stop",
        timestamp: clock,
      },
    });
  }
  appendFileSync(join(dir, `2026-01-01T00-00-00-000Z_${id}.jsonl`), `${lines.join("\n")}\n`);
}

function generate(root: string): { files: number; bytes: number } {
  const random = new Random(7);
  const zipf = new Zipf(vocabulary(random), random);
  const perSession = ENTRIES / SESSIONS;
  for (let i = 0; i < SESSIONS; i++)
    writeSessionFile(
      root,
      i,
      Math.max(4, Math.round(perSession * (0.2 + 1.6 * random.next()))),
      zipf,
      random,
    );
  return sizeOf(sessionsDir(root));
}

function sizeOf(dir: string): { files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  for (const name of readdirSync(dir, { recursive: true }).map(String)) {
    const stats = statSync(join(dir, name));
    if (stats.isFile()) {
      files++;
      bytes += stats.size;
    }
  }
  return { files, bytes };
}

const QUERIES = [
  "the",
  "error",
  "migration",
  "parseArgs",
  "args",
  "read_file",
  "src/app.ts",
  "stream buffer",
  '"rollback snapshot"',
  "deploy timeout",
  "loadSession",
  "pars*",
  "wheel island",
  "mountain river",
  "ETOKEN_120",
  "EQUEUE_2871",
  "surface deep moon",
  "resolveCache",
  "provider request retry",
  "nothingmatchesthis",
];

function ms(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

const work = values.dir ?? mkdtempSync(join(tmpdir(), "sessiontree-bench-search-"));
const root = join(work, "root");
process.env.SESSIONTREE_CACHE_DIR = join(work, "cache");
try {
  let start = process.hrtime.bigint();
  const existing = values.dir !== undefined && statSync(sessionsDir(root), { throwIfNoEntry: false });
  const data = existing ? sizeOf(sessionsDir(root)) : generate(root);
  console.log(
    `${existing ? "reused" : "generated"} ${data.files} sessions, ${(data.bytes / 1e6).toFixed(0)} MB in ${(ms(start) / 1000).toFixed(1)} s`,
  );

  if (!values["keep-index"]) dropSearchIndex(root);
  start = process.hrtime.bigint();
  const built = searchLocalDetailed({ root, query: "warmup" });
  const index = sizeOf(join(work, "cache", "search"));
  console.log(
    `index build: ${(ms(start) / 1000).toFixed(1)} s for ${built.refreshed.read} files, index ${(index.bytes / 1e6).toFixed(0)} MB (${((100 * index.bytes) / data.bytes).toFixed(0)}% of the sessions)`,
  );

  const times: number[] = [];
  const cpu: number[] = [];
  const rows: string[] = [];
  for (const query of QUERIES) {
    searchLocal({ root, query }); // warm
    const runs: number[] = [];
    const runsCpu: number[] = [];
    let hits = 0;
    for (let r = 0; r < RUNS; r++) {
      const t = process.hrtime.bigint();
      const usage = process.cpuUsage();
      hits = searchLocal({ root, query }).length;
      runs.push(ms(t));
      const spent = process.cpuUsage(usage);
      runsCpu.push((spent.user + spent.system) / 1000);
    }
    times.push(...runs);
    cpu.push(...runsCpu);
    rows.push(
      `  ${query.padEnd(26)} ${median(runs).toFixed(1).padStart(7)} ms  CPU ${median(runsCpu).toFixed(1).padStart(6)} ms  ${hits} hits`,
    );
  }
  console.log(
    `warm search over every session (--all), ${RUNS} runs per query, median per query (wall, CPU):`,
  );
  console.log(rows.join("\n"));
  console.log(
    `all queries: median ${median(times).toFixed(1)} ms, p95 ${percentile(times, 95).toFixed(1)} ms (target ≤ 100 ms); CPU median ${median(cpu).toFixed(1)} ms, p95 ${percentile(cpu, 95).toFixed(1)} ms`,
  );

  const scoped: number[] = [];
  for (const query of QUERIES) {
    searchLocal({ root, query, cwd: CWDS[3] });
    const t = process.hrtime.bigint();
    searchLocal({ root, query, cwd: CWDS[3] });
    scoped.push(ms(t));
  }
  console.log(
    `one directory's sessions (--cwd): median ${median(scoped).toFixed(1)} ms, p95 ${percentile(scoped, 95).toFixed(1)} ms`,
  );

  if (values.answers) {
    const answers: Record<string, unknown> = {};
    for (const query of QUERIES)
      for (const limit of [20, 200]) {
        answers[`${query} (limit ${limit})`] = searchLocal({ root, query, limit });
        answers[`${query} (cwd, limit ${limit})`] = searchLocal({ root, query, limit, cwd: CWDS[3] });
      }
    checkAnswers(values.answers, `local ${SESSIONS}x${ENTRIES}`, answers);
  }

  const grown = join(
    sessionsDir(root),
    encodeCwd(CWDS[0] as string),
    "2026-01-01T00-00-00-000Z_s000000.jsonl",
  );
  // Put back as it was after (size and mtime), so a kept corpus is the same on the next run: its
  // rebuilt index, and so its answers (`--answers`), are the same.
  const original = statSync(grown);
  appendFileSync(
    grown,
    `${JSON.stringify({ type: "message", id: "grown-1", parentId: null, timestamp: new Date().toISOString(), message: { role: "user", content: [{ type: "text", text: "freshly appended xylophone" }], timestamp: 1 } })}\n`,
  );
  try {
    start = process.hrtime.bigint();
    const after = searchLocalDetailed({ root, query: "xylophone" });
    console.log(
      `search after one file grew: ${ms(start).toFixed(1)} ms (${after.refreshed.extended} file extended, ${after.hits.length} hit)`,
    );
  } finally {
    truncateSync(grown, original.size);
    utimesSync(grown, original.atime, original.mtime);
  }
} finally {
  if (!values.keep && values.dir === undefined) rmSync(work, { recursive: true, force: true });
}
