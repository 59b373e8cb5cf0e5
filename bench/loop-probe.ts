// Loaded into a `sessiontree serve` child by bench/tenant-stall.ts and bench/server-load.ts (node
// --import): measures how long the event loop went without a turn, in wall time and in the CPU
// time of the main thread. On a machine shared with other work the wall time includes waits for a
// core; the main thread's CPU time between two turns does not (nor the garbage collector's helper
// threads, nor worker threads), so it shows the longest synchronous stretch the server itself ran.
// The thread's CPU time is read from /proc/thread-self/schedstat (Linux); elsewhere the process's
// CPU time (all threads) stands in. SIGUSR2 writes the figures since the previous SIGUSR2 to
// $ST_LOOP_PROBE_FILE (JSON, written whole by a rename, with a sequence number) and starts a new
// window.
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { isMainThread } from "node:worker_threads";

const file = process.env.ST_LOOP_PROBE_FILE;
// Worker threads inherit the preload: only the main thread's event loop is measured.
if (file && isMainThread) {
  const threadCpu = threadCpuReader();
  let walls: number[] = [];
  let cpus: number[] = [];
  let lastWall = performance.now();
  let lastCpu = threadCpu();
  let window = 0;
  const tick = () => {
    const wall = performance.now();
    const cpu = threadCpu();
    walls.push(wall - lastWall);
    cpus.push(cpu - lastCpu);
    lastWall = wall;
    lastCpu = cpu;
    setTimeout(tick, 1).unref();
  };
  setTimeout(tick, 1).unref();
  process.on("SIGUSR2", () => {
    window++;
    const text = JSON.stringify({ window, wall: summary(walls), cpu: summary(cpus) });
    writeFileSync(`${file}.tmp`, text);
    renameSync(`${file}.tmp`, file);
    walls = [];
    cpus = [];
  });
}

/** The main thread's CPU time in ms (schedstat's first field is ns on the CPU). */
function threadCpuReader(): () => number {
  try {
    readFileSync("/proc/thread-self/schedstat", "utf8");
    return () => Number(readFileSync("/proc/thread-self/schedstat", "utf8").split(" ")[0]) / 1e6;
  } catch {
    return () => {
      const { user, system } = process.cpuUsage();
      return (user + system) / 1000;
    };
  }
}

function summary(values: number[]): { turns: number; p99: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  const round = (ms: number) => Math.round(ms * 10) / 10;
  return { turns: sorted.length, p99: round(at(0.99)), max: round(sorted.at(-1) ?? 0) };
}
