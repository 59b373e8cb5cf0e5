import { rmSync } from "node:fs";
import { dirname } from "node:path";
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import { openPathOnly } from "../src/session/path-resume.js";
import { SessionManager } from "../src/session/session-manager.js";
import { indexPathFor } from "../src/store/jsonl/sidecar-index.js";
import type { GeneratedSession } from "./generate.js";
import type { Row } from "./results.js";
import { interleaved, median, timeOnce } from "./stats.js";

export interface OpenFigures {
  rows: Row[];
  /** Milliseconds of each way to open + build the context, for the physical comparison. */
  times: { pi: number; full: number; cold: number; warm: number };
}

/**
 * Open + context four ways on the same file, interleaved run by run: pi's SessionManager, our
 * SessionManager (reads every entry), and our resume through the sidecar index, cold (no index yet:
 * scans the file, writes the index) and warm (index present: reads only the lines the context needs).
 */
export function measureOpen(session: GeneratedSession, label: string, runs: number): OpenFigures {
  const dir = dirname(session.path);
  const dropIndex = () => rmSync(indexPathFor(session.path), { force: true });
  openPathOnly(session.path); // the warm runs need an index
  const t = interleaved(runs, {
    pi: { run: () => PiSessionManager.open(session.path, dir).buildSessionContext() },
    full: { run: () => openOurs(session.path, dir) },
    cold: { run: () => openPathOnly(session.path), before: dropIndex },
    warm: { run: () => openPathOnly(session.path) },
  });
  const group = `open + context (${label})`;
  const resumed = openPathOnly(session.path);
  const read = `reads ${resumed.entries.length.toLocaleString("en-US")} of the path's ${resumed.path.length.toLocaleString("en-US")} entries`;
  const rows: Row[] = [
    { group, what: "SessionManager.open + buildSessionContext", unit: "ms", ours: t.full, pi: t.pi },
    {
      group,
      what: "resume, cold (no index: scan + write index)",
      unit: "ms",
      ours: t.cold,
      pi: t.pi,
      target: label.startsWith("100k branchy") ? 5 : undefined,
    },
    {
      group,
      what: "resume, warm index (reads the context's lines only)",
      unit: "ms",
      ours: t.warm,
      pi: t.pi,
      target: label.startsWith("100k") ? 20 : undefined,
      note: read,
    },
  ];
  return { rows, times: t };
}

function openOurs(path: string, dir: string): unknown {
  const manager = SessionManager.open(path, dir);
  const context = manager.buildSessionContext();
  manager.close();
  return context;
}

/** getBranch, getTree and getChildren on sessions both managers already hold open. */
export function measureTreeOps(session: GeneratedSession, label: string, runs: number): Row[] {
  const dir = dirname(session.path);
  const ours = SessionManager.open(session.path, dir);
  const pi = PiSessionManager.open(session.path, dir);
  const ids = ours.getEntries().map((e) => e.id);
  const probes = Array.from({ length: 100 }, (_, i) => ids[Math.floor((i * ids.length) / 100)] as string);
  const group = `tree operations (${label})`;
  const branch = interleaved(runs, {
    ours: { run: () => ours.getBranch() },
    pi: { run: () => pi.getBranch() },
  });
  const tree = interleaved(runs, { ours: { run: () => ours.getTree() }, pi: { run: () => pi.getTree() } });
  const children = interleaved(runs, {
    ours: { run: () => probes.map((id) => ours.getChildren(id)) },
    pi: { run: () => probes.map((id) => pi.getChildren(id)) },
  });
  ours.close();
  return [
    { group, what: "getBranch() at the leaf", unit: "ms", ours: branch.ours, pi: branch.pi },
    { group, what: "getTree()", unit: "ms", ours: tree.ours, pi: tree.pi },
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
  const ours = SessionManager.open(session.path, dir);
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
