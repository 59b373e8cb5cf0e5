import { copyFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import { projectContext } from "../src/core/context.js";
import { SessionFile } from "../src/file/session-file.js";
import { indexPathFor } from "../src/file/sidecar-index.js";
import { openPathOnly } from "../src/session/context-resume.js";
import { SessionManager } from "../src/session/session-manager.js";
import type { GeneratedSession } from "./generate.js";
import type { Row } from "./results.js";
import { interleaved, median, medianMs, settle, timeOnce } from "./stats.js";

export interface OpenFigures {
  rows: Row[];
  /** Milliseconds of each way to open + build the context, for the physical comparison. */
  times: { pi: number; full: number; cold: number; warm: number };
}

/**
 * Open + context four ways on the same file, interleaved run by run: pi's SessionManager; ours, on
 * the first open (no sidecar index yet: it scans the file and writes the index) and on every later
 * open (index present: it reads only the lines the context needs); and our full read of every line
 * (what a manager does when it needs the whole tree), as the reference for a reader without index.
 */
export function measureOpen(session: GeneratedSession, label: string, runs: number): OpenFigures {
  const dir = dirname(session.path);
  const dropIndex = () => rmSync(indexPathFor(session.path), { force: true });
  openPathOnly(session.path); // the warm runs need an index
  const t = interleaved(runs, {
    pi: { run: () => PiSessionManager.open(session.path, dir).buildSessionContext() },
    full: { run: () => openWhole(session.path) },
    cold: { run: () => openOurs(session.path, dir), before: dropIndex },
    warm: { run: () => openOurs(session.path, dir) },
  });
  const group = `open + context (${label})`;
  const resumed = openPathOnly(session.path);
  const read = `reads ${resumed.entries.length.toLocaleString("en-US")} of the path's ${resumed.path.length.toLocaleString("en-US")} entries`;
  const rows: Row[] = [
    {
      group,
      what: "SessionManager.open + buildSessionContext, first open (no index: scan + write it)",
      unit: "ms",
      ours: t.cold,
      pi: t.pi,
      target: label.startsWith("100k branchy") ? 5 : undefined,
    },
    {
      group,
      what: "SessionManager.open + buildSessionContext, index present",
      unit: "ms",
      ours: t.warm,
      pi: t.pi,
      target: label.startsWith("100k") ? 20 : undefined,
      note: read,
    },
    { group, what: "full read of every line + context (no index)", unit: "ms", ours: t.full, pi: t.pi },
  ];
  return { rows, times: t };
}

function openOurs(path: string, dir: string): unknown {
  const manager = SessionManager.open(path, dir);
  const context = manager.buildSessionContext();
  manager.close();
  return context;
}

/** Every line read and validated into the tree, then the context: a reader without the index. */
function openWhole(path: string): unknown {
  const file = SessionFile.open(path);
  const context = projectContext(file.tree.getBranch());
  file.close();
  return context;
}

/**
 * What an agent does on resume: open, build the context, append the next message. Ours appends
 * under the leaf without reading the whole file (the lock, a catch-up with what others wrote since
 * the index, one write). Each run works on a fresh copy of the file, with the index of the
 * original in place, as on any open after the first.
 */
export function measureResumeAndAppend(session: GeneratedSession, label: string, runs: number): Row {
  const dir = dirname(session.path);
  openPathOnly(session.path);
  const copy = (name: string) => {
    const path = join(dir, `continue-${name}.jsonl`);
    copyFileSync(session.path, path);
    copyFileSync(indexPathFor(session.path), indexPathFor(path));
    return path;
  };
  const next = { role: "user" as const, content: "and now the next step", timestamp: Date.now() };
  const copies: string[] = [];
  /** Before each run, a fresh copy; the run resumes it, builds the context and appends `next`. */
  const onFreshCopy = (name: string, resume: (path: string) => unknown) => {
    let path = "";
    return {
      before: () => {
        path = copy(name);
        copies.push(path);
      },
      run: () => resume(path),
    };
  };
  const t = interleaved(runs, {
    pi: onFreshCopy("pi", (path) => {
      const manager = PiSessionManager.open(path, dir);
      manager.buildSessionContext();
      return manager.appendMessage(next);
    }),
    ours: onFreshCopy("ours", (path) => {
      const manager = SessionManager.open(path, dir);
      manager.buildSessionContext();
      const id = manager.appendMessage(next);
      manager.close();
      return id;
    }),
  });
  for (const path of new Set(copies)) {
    rmSync(path, { force: true });
    rmSync(indexPathFor(path), { force: true });
  }
  return {
    group: `resume and continue (${label})`,
    what: "open + context + the first append",
    unit: "ms",
    ours: t.ours,
    pi: t.pi,
  };
}

/** getBranch, getTree and getChildren on sessions both managers already hold open. */
export function measureTreeOps(session: GeneratedSession, label: string, runs: number): Row[] {
  const dir = dirname(session.path);
  const ours = loadedManager(session.path, dir);
  const pi = PiSessionManager.open(session.path, dir);
  const ids = ours.getEntries().map((e) => e.id);
  const probes = Array.from({ length: 100 }, (_, i) => ids[Math.floor((i * ids.length) / 100)] as string);
  const group = `tree operations (${label})`;
  const branch = interleaved(runs, {
    ours: { run: () => ours.getBranch() },
    pi: { run: () => pi.getBranch() },
  });
  const tree = interleaved(runs, {
    ours: { run: () => ours.getTree(), before: settle },
    pi: { run: () => pi.getTree(), before: settle },
  });
  // A caller that asks again and again (a tree view redrawn) pays for the collections its earlier
  // forests cause: each contender in a block of its own, after 50 ms of calls left out as warm-up
  // (on a small session, a few calls would time code not yet optimized, as a redrawn view's is).
  const backToBack = (fn: () => unknown) => {
    const warm = performance.now() + 50;
    for (let i = 0; i < 3 || performance.now() < warm; i++) fn();
    return medianMs(runs, fn);
  };
  settle();
  const repeatedOurs = backToBack(() => ours.getTree());
  settle();
  const repeatedPi = backToBack(() => pi.getTree());
  const children = interleaved(runs, {
    ours: { run: () => probes.map((id) => ours.getChildren(id)) },
    pi: { run: () => probes.map((id) => pi.getChildren(id)) },
  });
  ours.close();
  return [
    { group, what: "getBranch() at the leaf", unit: "ms", ours: branch.ours, pi: branch.pi },
    {
      group,
      what: "getTree()",
      unit: "ms",
      ours: tree.ours,
      pi: tree.pi,
      target: label.startsWith("100k") ? 5 : undefined,
    },
    {
      group,
      what: "getTree(), called back to back (no collection between calls)",
      unit: "ms",
      ours: repeatedOurs,
      pi: repeatedPi,
    },
    {
      group,
      what: "getChildren(id), per call",
      unit: "ms",
      ours: children.ours / probes.length,
      pi: children.pi / probes.length,
    },
  ];
}

/** getBranch and the context at the end of a deep linear chain (pi: O(n²) through `unshift`). */
export function measureDeepChain(session: GeneratedSession, runs: number): Row[] {
  const dir = dirname(session.path);
  const ours = loadedManager(session.path, dir);
  const pi = PiSessionManager.open(session.path, dir);
  const group = `deep chain (depth ${session.depth.toLocaleString("en-US")})`;
  const target = session.depth >= 200_000 ? 100 : undefined;
  const measure = (fn: () => unknown) => median(Array.from({ length: runs }, () => timeOnce(fn)));
  const rows: Row[] = [
    {
      group,
      what: "getBranch() at the leaf",
      unit: "ms",
      ours: measure(() => ours.getBranch()),
      pi: measure(() => pi.getBranch()),
      target,
    },
    {
      group,
      what: "buildSessionContext()",
      unit: "ms",
      ours: measure(() => ours.buildSessionContext()),
      pi: measure(() => pi.buildSessionContext()),
      target,
    },
  ];
  ours.close();
  return rows;
}

/**
 * Our manager with the whole tree read: a manager opened through the index reads the file on the
 * first call that needs more than the leaf's context, and these rows measure the calls, not that read.
 */
function loadedManager(path: string, dir: string): SessionManager {
  const manager = SessionManager.open(path, dir);
  manager.getEntries();
  return manager;
}
