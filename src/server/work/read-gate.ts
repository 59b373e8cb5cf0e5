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
 * Runs one whole-session read (tree, context, branch, export, labels). A user may have
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
  const state = stateOf(services);
  const { maxHeavyReadsPerUser: cap, maxHeavyReads } = services.limits;
  const mine = state.perUser.get(userId) ?? 0;
  if (cap > 0 && mine >= cap) {
    const message = `At most ${cap} whole-session reads at once per user; page with GET …/entries or retry`;
    throw new HttpError(429, "rate_limited", message, { "Retry-After": "1" });
  }
  state.perUser.set(userId, mine + 1);
  try {
    // A finishing read hands its slot straight to the next in line, so none can slip in between.
    if (maxHeavyReads > 0 && state.running >= maxHeavyReads) {
      await new Promise<void>((resolve) => state.waiting.push(resolve));
    } else state.running++;
    try {
      return await read();
    } finally {
      const next = state.waiting.shift();
      if (next) next();
      else state.running--;
    }
  } finally {
    const left = (state.perUser.get(userId) ?? 1) - 1;
    if (left <= 0) state.perUser.delete(userId);
    else state.perUser.set(userId, left);
  }
}
