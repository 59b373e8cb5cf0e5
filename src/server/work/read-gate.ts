import { HttpError } from "../http/http-error.js";
import type { ServerServices } from "../services.js";

interface GateState {
  /** Reads per user, running or waiting. */
  perUser: Map<string, number>;
  running: number;
  waiting: Array<() => void>;
}

const gates = new WeakMap<ServerServices, GateState>();

function stateOf(services: ServerServices): GateState {
  let state = gates.get(services);
  if (!state) {
    state = { perUser: new Map(), running: 0, waiting: [] };
    gates.set(services, state);
  }
  return state;
}

/**
 * Runs one whole-session read (tree, context, branch, labels, stats). A user may have
 * `limits.maxHeavyReadsPerUser` of them at once; past that the answer is at once 429 with
 * Retry-After. Server-wide at most `limits.maxHeavyReads` run at a time, the others wait their
 * turn in arrival order: each running read takes one time slice per event-loop turn, so this
 * bounds how long a small request can wait behind them, however many users read at once.
 */
export async function gatedRead<T>(
  services: ServerServices,
  userId: string,
  read: () => Promise<T>,
): Promise<T> {
  const leave = await enterRead(services, userId);
  try {
    return await read();
  } finally {
    leave();
  }
}

/**
 * Takes a whole-read slot as `gatedRead` does and hands back its release, for a read that
 * outlives its handler (a streamed export holds its slot until the last byte is sent). The
 * release may be called more than once; only the first counts.
 */
export async function enterRead(services: ServerServices, userId: string): Promise<() => void> {
  const state = stateOf(services);
  const { maxHeavyReadsPerUser: cap, maxHeavyReads } = services.limits;
  const mine = state.perUser.get(userId) ?? 0;
  if (cap > 0 && mine >= cap) {
    const message = `At most ${cap} whole-session reads at once per user; page with GET …/entries or retry`;
    throw new HttpError(429, "rate_limited", message, { "Retry-After": "1" });
  }
  state.perUser.set(userId, mine + 1);
  // A finishing read hands its slot straight to the next in line, so none can slip in between.
  if (maxHeavyReads > 0 && state.running >= maxHeavyReads) {
    await new Promise<void>((resolve) => state.waiting.push(resolve));
  } else state.running++;
  let left = false;
  return () => {
    if (left) return;
    left = true;
    const next = state.waiting.shift();
    if (next) next();
    else state.running--;
    const still = (state.perUser.get(userId) ?? 1) - 1;
    if (still <= 0) state.perUser.delete(userId);
    else state.perUser.set(userId, still);
  };
}
