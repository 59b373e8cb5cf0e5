/**
 * The viewer on large sessions, in Chromium, driven as the browser tests drive it
 * (test/viewer/support/browser.ts): sessions of 10k, 100k and 1M entries from bench/generate.ts,
 * served by the viewer over local files, each opened from a fresh page.
 *
 *   npx tsx bench/viewer.ts [--sizes 10000,100000,1000000] [--json FILE]
 *
 * Prints per size: the first useful paint (navigation start → tree drawn and the leaf's context
 * shown) cold (the server reads the file) and warm (the server kept it), and the latency of a
 * select (click → entry and context shown), a fold (double-click → frame drawn) and a scroll
 * (wheel → frame drawn), each from the input event's timestamp, medians of several; the page's
 * JS heap and the server's heap and RSS. Targets (issue 14.2): first paint ≤ 1 s at 100k,
 * interactions ≤ 100 ms, 1M opens.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { sessionDirFor, sessionFileName } from "../src/file/paths.js";
import { createLocalSource } from "../src/viewer/local-source.js";
import { type RunningViewer, startViewer } from "../src/viewer/serve.js";
import { launchBrowser } from "../test/viewer/support/browser.js";
import { hook } from "../test/viewer/support/page-helpers.js";
import { generateSession } from "./generate.js";

interface SizeResult {
  entries: number;
  fileMB: number;
  rows: number;
  coldPaintMs: number;
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
function writeSession(base: string, entries: number): { root: string; key: string; bytes: number } {
  const root = join(base, `root-${entries}`);
  const dir = sessionDirFor(root, CWD, "sessiontree");
  mkdirSync(dir, { recursive: true });
  const name = sessionFileName("2026-01-05T09:00:00.000Z", `bench-${entries}`);
  const generated = generateSession(join(dir, name), {
    entries,
    abandonedBranches: Math.max(1, Math.round(entries / 1000)),
  });
  const folder = dir.slice(dir.lastIndexOf("/") + 1);
  return { root, key: `sessiontree:${folder}/${name}`, bytes: generated.bytes };
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
  const frame = await hook(page, "frame");
  return [page, Math.max(timings.firstPaintAt as number, frame?.at ?? 0)];
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

async function measure(base: string, entries: number, log: (line: string) => void): Promise<SizeResult> {
  const t0 = Date.now();
  const { root, key, bytes } = writeSession(base, entries);
  log(`  generated ${entries} entries, ${(bytes / 1e6).toFixed(0)} MB in ${Date.now() - t0} ms`);
  const viewer: RunningViewer = await startViewer({
    source: createLocalSource({ root, piDir: null }),
    port: 0,
  });
  const browser = await launchBrowser();
  try {
    const [cold, coldMs] = await firstPaint(() => browser.newPage(), viewer.url, key);
    await cold.close();
    const warmRuns: number[] = [];
    let page: Page | null = null;
    for (let i = 0; i < 3; i++) {
      await page?.close();
      const [opened, ms] = await firstPaint(() => browser.newPage(), viewer.url, key);
      page = opened;
      warmRuns.push(ms);
    }
    const shown = page as Page;
    const rows = await hook(shown, "rowCount");
    const acted = await interactions(shown);
    const pageHeapMB = await shown.evaluate(
      () =>
        ((performance as unknown as { memory?: { usedJSHeapSize: number } }).memory?.usedJSHeapSize ?? 0) /
        1e6,
    );
    const memory = process.memoryUsage();
    if (browser.errors.length > 0) throw new Error(`the page failed: ${browser.errors.join("; ")}`);
    return {
      entries,
      fileMB: bytes / 1e6,
      rows,
      coldPaintMs: coldMs,
      warmPaintMs: median(warmRuns),
      ...acted,
      pageHeapMB,
      serverHeapMB: memory.heapUsed / 1e6,
      serverRssMB: memory.rss / 1e6,
    };
  } finally {
    await browser.close();
    await viewer.close();
    rmSync(root, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const sizes = (option("sizes") ?? "10000,100000,1000000").split(",").map(Number);
  const base = mkdtempSync(join(tmpdir(), "sessiontree-bench-viewer-"));
  process.env.SESSIONTREE_CACHE_DIR = join(base, "cache");
  const log = (line: string) => process.stdout.write(`${line}\n`);
  const results: SizeResult[] = [];
  try {
    for (const entries of sizes) {
      log(`viewer, ${entries} entries`);
      const r = await measure(base, entries, log);
      results.push(r);
      const mark = (ms: number, target: number) => `${ms.toFixed(0)} ms${ms <= target ? " ✓" : " ✗"}`;
      log(
        `  ${r.rows} rows · first paint cold ${r.coldPaintMs.toFixed(0)} ms, warm ${entries === 100_000 ? mark(r.warmPaintMs, 1000) : `${r.warmPaintMs.toFixed(0)} ms`}` +
          ` · select ${mark(r.selectMs, 100)} · fold ${mark(r.foldMs, 100)} · scroll ${mark(r.scrollMs, 100)}`,
      );
      log(
        `  page heap ${r.pageHeapMB.toFixed(0)} MB · server heap ${r.serverHeapMB.toFixed(0)} MB, rss ${r.serverRssMB.toFixed(0)} MB`,
      );
    }
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
  const json = option("json");
  if (json) writeFileSync(json, `${JSON.stringify(results, null, 2)}\n`);
}

await main();
