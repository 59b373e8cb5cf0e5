// Loaded into a `sessiontree serve` child by bench/tenant-stall.ts (node --import): measures how
// long the event loop went without a turn, in wall time and in the process's CPU time. On a machine
// shared with other work the wall time includes waits for a core; the CPU time between two turns
// does not, so it shows the longest synchronous stretch the server itself ran. SIGUSR2 writes the
// figures since the previous SIGUSR2 to $ST_LOOP_PROBE_FILE (JSON) and starts a new window.
import { writeFileSync } from "node:fs";

const file = process.env.ST_LOOP_PROBE_FILE;
if (file) {
  let walls: number[] = [];
  let cpus: number[] = [];
  let lastWall = performance.now();
  let lastCpu = cpuMs();
  const tick = () => {
    const wall = performance.now();
    const cpu = cpuMs();
    walls.push(wall - lastWall);
    cpus.push(cpu - lastCpu);
    lastWall = wall;
    lastCpu = cpu;
    setTimeout(tick, 1).unref();
  };
  setTimeout(tick, 1).unref();
  process.on("SIGUSR2", () => {
    writeFileSync(file, JSON.stringify({ wall: summary(walls), cpu: summary(cpus) }));
    walls = [];
    cpus = [];
  });
}

function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

function summary(values: number[]): { turns: number; p99: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  const round = (ms: number) => Math.round(ms * 10) / 10;
  return { turns: sorted.length, p99: round(at(0.99)), max: round(sorted.at(-1) ?? 0) };
}
