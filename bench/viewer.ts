/**
 * The viewer on large sessions, in Chromium, driven as the browser tests drive it
 * (test/viewer/support/browser.ts): sessions of 10k, 100k and 1M entries from bench/generate.ts,
 * served by the viewer over local files, each opened from a fresh page.
 *
 *   npx tsx bench/viewer.ts [--sizes 10000,100000,1000000] [--whole-sizes 10000,100000] [--json FILE]
 *
 * Prints per size: the first useful paint (navigation start → the tree drawn with the texts of the
 * rows in view, and the leaf's context shown) cold and warm, where a cold paint's time went (the
 * page's script, the server's answer, its bytes, the page's reading and opening of it), and the latency of a select (click → entry and context shown), a fold
 * (double-click → frame drawn) and a scroll (wheel → frame drawn), each from the input event's
 * timestamp, medians of several; the page's JS heap and the server's heap and RSS. Targets
 * (issue 14.2): first paint ≤ 1 s at 100k, interactions ≤ 100 ms, 1M opens.
 *
 * The viewer runs in a child process (this file with `--serve`), a fresh one for each cold figure,
 * so a cold paint is the first read of the file by a server that has read nothing before (the
 * file itself is in the OS page cache: it was just written). Cold is measured three ways:
 * `whole`, the server reading the file whole (`wholeRead`, as before the sidecar index served the
 * viewer); `no index`, served through the index with none made yet (a file pi wrote); `index`,
 * in a new server after that one saved it. Warm (the server kept the session), the interactions
 * and the server's memory are the indexed server's.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { createAdaptorServer } from "@hono/node-server";
import type { Page } from "playwright-core";
import { sessionDirFor, sessionFileName } from "../src/file/paths.js";
import { dropCachedIndex } from "../src/file/sidecar-index.js";
import { SessionManager } from "../src/session/session-manager.js";
import { createViewerApp } from "../src/viewer/app.js";
import { createLocalSource } from "../src/viewer/local-source.js";
import { launchBrowser } from "../test/viewer/support/browser.js";
import { hook } from "../test/viewer/support/page-helpers.js";
import { generateSession } from "./generate.js";
import type { Goal } from "./goals.js";

interface SizeResult {
  entries: number;
  fileMB: number;
  rows: number;
  /** Listing the session with nothing cached (its catalog entry made): before the first paint today. */
  listingColdMs: number;
  /** Cold first paint: the file read whole, through an index made on the way, through the saved index. */
  coldWholeMs: number;
  coldNoIndexMs: number;
  coldIndexMs: number;
  /** Where the cold paints' time went (no index, index). */
  coldNoIndexBreakdown: PaintBreakdown;
  coldIndexBreakdown: PaintBreakdown;
  warmPaintMs: number;
  selectMs: number;
  foldMs: number;
  scrollMs: number;
  pageHeapMB: number;
  serverHeapMB: number;
  serverRssMB: number;
}

const CWD = "/home/dev/project";
const REPEAT = 5;

function option(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** A generated session in a sessiontree root, and its viewer key. */
function writeSession(
  base: string,
  entries: number,
): { root: string; path: string; key: string; bytes: number } {
  const root = join(base, `root-${entries}`);
  const dir = sessionDirFor(root, CWD, "sessiontree");
  mkdirSync(dir, { recursive: true });
  const name = sessionFileName("2026-01-05T09:00:00.000Z", `bench-${entries}`);
  const generated = generateSession(join(dir, name), {
    entries,
    abandonedBranches: Math.max(1, Math.round(entries / 1000)),
  });
  const folder = dir.slice(dir.lastIndexOf("/") + 1);
  return { root, path: join(dir, name), key: `sessiontree:${folder}/${name}`, bytes: generated.bytes };
}

/**
 * Where a first paint's time went, ms since navigation start: the page's own script started, the
 * shape asked for (by the page's head script), the server's first byte, the answer received (and
 * its bytes), the shape in the page's hands (read, parsed, decoded), the session opened (model,
 * layout), the context and the tree shown.
 */
interface PaintBreakdown {
  script: number;
  asked: number;
  firstByte: number;
  received: number;
  kb: number;
  shape: number;
  opened: number;
  context: number;
  tree: number;
  /** The requests the server handled before the paint, in order (its own clock). */
  handled: HandledRequest[];
}

async function breakdownOf(page: Page): Promise<Omit<PaintBreakdown, "handled">> {
  const timings = await hook(page, "timings");
  const shape = await page.evaluate(() => {
    const entry = performance.getEntriesByType("resource").find((e) => e.name.includes("/api/shape")) as
      | PerformanceResourceTiming
      | undefined;
    return entry
      ? {
          asked: entry.fetchStart,
          firstByte: entry.responseStart,
          received: entry.responseEnd,
          kb: entry.encodedBodySize / 1024,
        }
      : { asked: Number.NaN, firstByte: Number.NaN, received: Number.NaN, kb: Number.NaN };
  });
  const at = (name: string) => timings[name] ?? Number.NaN;
  return {
    script: at("scriptAt"),
    ...shape,
    shape: at("shapeAt"),
    opened: at("openedAt"),
    context: at("contextShownAt"),
    tree: at("treeShownAt"),
  };
}

function describeBreakdown(b: PaintBreakdown): string {
  const ms = (n: number) => n.toFixed(0);
  return (
    `script ${ms(b.script)} · shape asked ${ms(b.asked)}, server ${ms(b.firstByte - b.asked)} ms, ` +
    `${b.kb.toFixed(0)} KB in by ${ms(b.received)}, in hand ${ms(b.shape)} · opened ${ms(b.opened)} · ` +
    `context ${ms(b.context)} · tree ${ms(b.tree)}\n      server side: ${describeHandled(b.handled)}`
  );
}

/** Each request the server handled: its path and its start and answer, ms after the first's start. */
function describeHandled(handled: HandledRequest[]): string {
  const zero = handled[0]?.start ?? 0;
  const ms = (n: number) => (n - zero).toFixed(0);
  return handled.map((r) => `${r.path} ${ms(r.start)}→${ms(r.end)}`).join(", ");
}

/** Opens the session in a fresh page; ms from navigation start to the tree and context shown. */
async function firstPaint(newPage: () => Promise<Page>, url: string, key: string): Promise<[Page, number]> {
  const page = await newPage();
  const crashed = new Promise<never>((_, reject) => {
    page.on("pageerror", (err) => reject(new Error(`the page failed: ${err.message}`)));
    page.on("crash", () => reject(new Error("the page crashed (out of memory?)")));
  });
  crashed.catch(() => {});
  await page.goto(`${url}#session=${encodeURIComponent(key)}`, { timeout: 600_000 });
  await Promise.race([crashed, painted(page)]);
  const title = (await page.textContent("#session-title")) ?? "";
  if (title.startsWith("Could not")) throw new Error(title);
  const empty = (await page.textContent("#empty")) ?? "";
  if (empty.includes("could not list")) throw new Error(empty);
  const timings = await hook(page, "timings");
  // The page's figure: the first frame of the tree with the texts of the rows in view, and the
  // leaf's context, whichever came last (browser/viewer.ts).
  return [page, timings.firstPaintAt as number];
}

/** Resolves once the page has drawn the tree and the leaf's context, or said it could not. */
async function painted(page: Page): Promise<void> {
  await page.waitForFunction(
    () => {
      const v = (window as unknown as { __viewer?: { timings(): Record<string, number | undefined> } })
        .__viewer;
      const failed =
        document.getElementById("session-title")?.textContent?.startsWith("Could not") ||
        document.getElementById("empty")?.textContent?.includes("could not list");
      return v?.timings().firstPaintAt !== undefined || failed;
    },
    undefined,
    { timeout: 600_000, polling: 20 },
  );
}

/** Records the timestamp of the last input event, for latencies measured from it. */
async function watchInputs(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as { __lastInput: number };
    for (const type of ["pointerdown", "dblclick", "wheel", "keydown"])
      document.addEventListener(type, (ev) => (w.__lastInput = ev.timeStamp), { capture: true });
  });
}

/** Waits for the first frame drawn after the last input (and, for a select, its context shown). */
async function latency(page: Page, withContext: string | null): Promise<number> {
  await page.waitForFunction(
    (id) => {
      const w = window as unknown as {
        __lastInput: number;
        __viewer: { frame(): { at: number } | null; timings(): Record<string, number | undefined> };
      };
      const frameAfter = (w.__viewer.frame()?.at ?? 0) > w.__lastInput;
      const box = document.getElementById("context");
      const context =
        id === null ||
        (box?.getAttribute("data-entry-id") === id && box.getAttribute("aria-busy") === "false");
      return frameAfter && context;
    },
    withContext,
    { polling: 10, timeout: 120_000 },
  );
  return page.evaluate((withCtx) => {
    const w = window as unknown as {
      __lastInput: number;
      __viewer: { frame(): { at: number } | null; timings(): Record<string, number | undefined> };
    };
    const frame = w.__viewer.frame()?.at ?? 0;
    const shown = withCtx ? (w.__viewer.timings().contextShownAt ?? 0) : 0;
    return Math.max(frame, shown) - w.__lastInput;
  }, withContext !== null);
}

async function interactions(page: Page): Promise<{ selectMs: number; foldMs: number; scrollMs: number }> {
  await watchInputs(page);
  const ids = await hook(page, "rowCount");
  const select: number[] = [];
  const fold: number[] = [];
  const scroll: number[] = [];
  const box = (await page.locator("#tree").boundingBox()) as { x: number; y: number; width: number };
  for (let i = 0; i < REPEAT; i++) {
    // A row far from the leaf each time: its entry and context were never asked for.
    const row = Math.floor(((i + 1) * ids) / (REPEAT + 2));
    const id = (await hook(page, "idAtRow", row)) as string;
    await hook(page, "center", id);
    await page.waitForTimeout(50);
    const point = await hook(page, "clientPoint", id);
    if (!point) throw new Error(`row ${row} (${id}) is not drawn`);
    await page.mouse.click(point.x, point.y);
    select.push(await latency(page, id));
    // ← folds the selected node's subtree (most of the session, for a node on the main line), → unfolds it.
    const before = await hook(page, "rowCount");
    await page.keyboard.press("ArrowLeft");
    fold.push(await latency(page, null));
    await page.keyboard.press("ArrowRight");
    await latency(page, null);
    const after = await hook(page, "rowCount");
    if (after !== before) throw new Error(`fold and unfold left ${after} rows of ${before}`);
    await page.mouse.move(box.x + box.width / 2, box.y + 300);
    await page.mouse.wheel(0, 1500);
    scroll.push(await latency(page, null));
  }
  return { selectMs: median(select), foldMs: median(fold), scrollMs: median(scroll) };
}

/**
 * Sizes whose cold paint is also measured with the file read whole (`--whole-sizes`): at 1,000,000
 * entries that read takes over a minute, past Node's 5-minute request timeout when the machine is busy.
 */
function wholeSizes(): number[] {
  return (option("whole-sizes") ?? "10000,100000").split(",").map(Number);
}

/** A viewer over `root` in a child process: its URL, its memory, and how to stop it. */
interface ServerChild {
  url: string;
  memory(): Promise<NodeJS.MemoryUsage>;
  requests(): Promise<HandledRequest[]>;
  close(): Promise<void>;
}

const MEMORY_PATH = "/__bench/memory";
/** The requests the server child handled, in order: what each asked and when (ms of its clock). */
const REQUESTS_PATH = "/__bench/requests";

/** A request as the server child handled it: its path, and its start and answer, ms since the first. */
interface HandledRequest {
  path: string;
  start: number;
  end: number;
}

async function startServer(root: string, cacheDir: string, whole: boolean): Promise<ServerChild> {
  const args = [...process.execArgv, fileURLToPath(import.meta.url), "--serve", root];
  if (whole) args.push("--whole");
  const child: ChildProcess = spawn(process.execPath, args, {
    env: { ...process.env, SESSIONTREE_CACHE_DIR: cacheDir },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).once("line", resolve);
    child.once("exit", (code) => reject(new Error(`the viewer exited (${code}) before it listened`)));
  });
  return {
    url,
    memory: async () => (await (await fetch(new URL(MEMORY_PATH, url))).json()) as NodeJS.MemoryUsage,
    requests: async () => (await (await fetch(new URL(REQUESTS_PATH, url))).json()) as HandledRequest[],
    close: async () => {
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** `--serve ROOT [--whole]`: the viewer over ROOT on a free port; prints its URL. */
async function serve(root: string, whole: boolean): Promise<void> {
  const app = createViewerApp(createLocalSource({ root, piDir: null, wholeRead: whole }));
  const handled: HandledRequest[] = [];
  const timed = async (request: Request, path: string): Promise<Response> => {
    const start = performance.now();
    const response = await app.fetch(request);
    handled.push({ path, start, end: performance.now() });
    return response;
  };
  const server = createAdaptorServer({
    fetch: (request: Request) => {
      const url = new URL(request.url);
      if (url.pathname === MEMORY_PATH) return Response.json(process.memoryUsage());
      if (url.pathname === REQUESTS_PATH) return Response.json(handled);
      return timed(request, url.pathname);
    },
  });
  // The page's script is bundled at the first page asked for when running from source (an
  // installed package serves a prebuilt one): made now, so a cold paint is the session's read.
  await app.fetch(new Request("http://127.0.0.1/"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address() as { port: number };
  process.stdout.write(`http://127.0.0.1:${address.port}/\n`);
}

/** The cold first paint in a new server over `root`; the server is left running for the caller. */
async function coldPaint(
  browser: Awaited<ReturnType<typeof launchBrowser>>,
  root: string,
  cacheDir: string,
  key: string,
  whole: boolean,
): Promise<{ server: ServerChild; ms: number; breakdown: PaintBreakdown }> {
  const server = await startServer(root, cacheDir, whole);
  try {
    const [page, ms] = await firstPaint(() => browser.newPage(), server.url, key);
    const breakdown = { ...(await breakdownOf(page)), handled: await server.requests() };
    await page.close();
    return { server, ms, breakdown };
  } catch (error) {
    await server.close();
    throw error;
  }
}

async function measure(base: string, entries: number, log: (line: string) => void): Promise<SizeResult> {
  const t0 = Date.now();
  const { root, path, key, bytes } = writeSession(base, entries);
  log(`  generated ${entries} entries, ${(bytes / 1e6).toFixed(0)} MB in ${Date.now() - t0} ms`);
  const cacheDir = join(base, `cache-${entries}`);
  // The page shows a session once the list is read too, and listing a file its catalog does not
  // know reads it whole: timed here, once, then kept (as it is between runs of the viewer), so the
  // cold paints below measure the session's read.
  process.env.SESSIONTREE_CACHE_DIR = cacheDir;
  const listed = performance.now();
  await SessionManager.listAll(undefined, { root });
  const listingColdMs = performance.now() - listed;
  dropCachedIndex(path);
  const browser = await launchBrowser();
  const servers: ServerChild[] = [];
  try {
    let coldWholeMs = Number.NaN;
    if (wholeSizes().includes(entries)) {
      const whole = await coldPaint(browser, root, cacheDir, key, true);
      await whole.server.close();
      coldWholeMs = whole.ms;
      dropCachedIndex(path);
    }
    const noIndex = await coldPaint(browser, root, cacheDir, key, false);
    servers.push(noIndex.server);
    const warmRuns: number[] = [];
    let page: Page | null = null;
    for (let i = 0; i < 3; i++) {
      await page?.close();
      const [opened, ms] = await firstPaint(() => browser.newPage(), noIndex.server.url, key);
      page = opened;
      warmRuns.push(ms);
    }
    const shown = page as Page;
    const rows = await hook(shown, "rowCount");
    const acted = await interactions(shown);
    // What the page holds, not the garbage its interactions left (a relayout at 1,000,000 entries
    // makes tens of megabytes of it): collected first.
    await (await shown.context().newCDPSession(shown)).send("HeapProfiler.collectGarbage");
    const pageHeapMB = await shown.evaluate(
      () =>
        ((performance as unknown as { memory?: { usedJSHeapSize: number } }).memory?.usedJSHeapSize ?? 0) /
        1e6,
    );
    const memory = await noIndex.server.memory();
    await shown.close();
    await noIndex.server.close();
    const indexed = await coldPaint(browser, root, cacheDir, key, false);
    servers.push(indexed.server);
    if (browser.errors.length > 0) throw new Error(`the page failed: ${browser.errors.join("; ")}`);
    return {
      entries,
      fileMB: bytes / 1e6,
      rows,
      listingColdMs,
      coldWholeMs,
      coldNoIndexMs: noIndex.ms,
      coldIndexMs: indexed.ms,
      coldNoIndexBreakdown: noIndex.breakdown,
      coldIndexBreakdown: indexed.breakdown,
      warmPaintMs: median(warmRuns),
      ...acted,
      pageHeapMB,
      serverHeapMB: memory.heapUsed / 1e6,
      serverRssMB: memory.rss / 1e6,
    };
  } finally {
    for (const server of servers) await server.close();
    await browser.close();
    rmSync(root, { recursive: true, force: true });
    rmSync(cacheDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const sizes = (option("sizes") ?? "10000,100000,1000000").split(",").map(Number);
  const base = mkdtempSync(join(tmpdir(), "sessiontree-bench-viewer-"));
  const log = (line: string) => process.stdout.write(`${line}\n`);
  const results: SizeResult[] = [];
  const load = () =>
    loadavg()
      .map((l) => l.toFixed(2))
      .join(" ");
  log(`load average at start: ${load()}`);
  try {
    for (const entries of sizes) {
      log(`viewer, ${entries} entries`);
      const r = await measure(base, entries, log);
      results.push(r);
      const mark = (ms: number, target: number) => `${ms.toFixed(0)} ms${ms <= target ? " ✓" : " ✗"}`;
      const paint = (ms: number) => (entries === 100_000 ? mark(ms, 1000) : `${ms.toFixed(0)} ms`);
      log(
        `  ${r.rows} rows · first paint cold: whole ${r.coldWholeMs.toFixed(0)} ms, no index ${paint(r.coldNoIndexMs)}, ` +
          `index ${paint(r.coldIndexMs)} (${(r.coldWholeMs / r.coldIndexMs).toFixed(1)}× faster than whole); warm ${paint(r.warmPaintMs)}`,
      );
      log(`  cold, no index: ${describeBreakdown(r.coldNoIndexBreakdown)}`);
      log(`  cold, index:    ${describeBreakdown(r.coldIndexBreakdown)}`);
      log(`  listing with no catalog ${r.listingColdMs.toFixed(0)} ms (kept for the paints above)`);
      log(
        `  select ${mark(r.selectMs, 100)} · fold ${mark(r.foldMs, 100)} · scroll ${mark(r.scrollMs, 100)}`,
      );
      log(
        `  page heap ${r.pageHeapMB.toFixed(0)} MB · server heap ${r.serverHeapMB.toFixed(0)} MB, rss ${r.serverRssMB.toFixed(0)} MB · load average ${load()}`,
      );
    }
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
  const json = option("json");
  if (json) writeFileSync(json, `${JSON.stringify(results, null, 2)}\n`);
  const goalsFile = option("goals-json");
  if (goalsFile) writeFileSync(goalsFile, `${JSON.stringify(results.flatMap(viewerGoals))}\n`);
}

/**
 * The targets (14.2), for `npm run bench`: at 100,000 entries the first paint of a cold
 * server in ≤ 1 s (a file pi wrote, with no index yet, and one with its index); at every size a
 * select, a fold and a scroll in ≤ 100 ms; at 1,000,000 the session opens in a bounded heap.
 */
function viewerGoals(r: SizeResult): Goal[] {
  const group = "viewer (Chromium)";
  const at = `${r.entries.toLocaleString("en")} entries`;
  const goals: Goal[] = [];
  if (r.entries === 100_000) {
    goals.push({
      group,
      what: `${at}: first paint, cold server, no index yet`,
      value: r.coldNoIndexMs,
      unit: "ms",
      bound: 1000,
    });
    goals.push({
      group,
      what: `${at}: first paint, cold server, index present`,
      value: r.coldIndexMs,
      unit: "ms",
      bound: 1000,
    });
  }
  for (const [what, value] of [
    ["select", r.selectMs],
    ["fold", r.foldMs],
    ["scroll", r.scrollMs],
  ] as const)
    goals.push({ group, what: `${at}: ${what}, input to frame`, value, unit: "ms", bound: 100 });
  if (r.entries >= 1_000_000)
    goals.push({
      group,
      what: `${at}: server heap after opening`,
      value: r.serverHeapMB,
      unit: "MiB",
      bound: 1024,
      note: `page heap ${r.pageHeapMB.toFixed(0)} MB; first paint ${(r.coldIndexMs / 1000).toFixed(1)} s with the index`,
    });
  return goals;
}

const serveRoot = option("serve");
if (serveRoot !== undefined) await serve(serveRoot, process.argv.includes("--whole"));
else await main();
