import { readlinkSync } from "node:fs";
import { getPriority, setPriority } from "node:os";

/** The nice value of the compute workers: below every request's thread, above idle work. */
export const WORKER_NICE = 10;

/**
 * Lowers the calling thread's CPU priority (Linux: `setpriority` on a thread id applies to that
 * thread alone; the id comes from /proc/thread-self). Whole-session answers are built at this
 * priority, so on a busy machine a small request's thread gets a core before a large read's
 * arithmetic does. Elsewhere, or when refused, nothing changes: answers stay the same, only the
 * scheduling hint is lost. Returns the thread id it lowered, or undefined.
 */
export function lowerThreadPriority(nice = WORKER_NICE): number | undefined {
  try {
    const tid = Number(readlinkSync("/proc/thread-self").split("/").pop());
    if (!Number.isInteger(tid) || tid <= 0) return undefined;
    // Never raise it: a process started at a lower priority keeps it (and raising needs privileges).
    setPriority(tid, Math.max(nice, getPriority(tid)));
    return tid;
  } catch {
    return undefined;
  }
}
