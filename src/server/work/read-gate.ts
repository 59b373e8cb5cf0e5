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
  const leaveUser = enterUser(services, userId);
  try {
    return await inInstanceSlot(services, read);
  } finally {
    leaveUser();
  }
}

/**
 * A whole-session read that outlives its handler, a streamed export: it counts among its user's
 * reads until its last byte is sent or the client goes away (the release this returns, which may
 * be called more than once), and takes an instance slot only for each piece it reads (`step`). A
 * client that stops reading then holds none: it cannot keep other users' reads waiting.
 */
export function enterStreamedRead(
  services: ServerServices,
  userId: string,
): { leave: () => void; step: <T>(read: () => Promise<T>) => Promise<T> } {
  const leave = enterUser(services, userId);
  return { leave, step: (read) => inInstanceSlot(services, read) };
}

/** Runs `read` in one of the instance's running slots. */
async function inInstanceSlot<T>(services: ServerServices, read: () => Promise<T>): Promise<T> {
  const leave = await enterInstance(services);
  try {
    return await read();
  } finally {
    leave();
  }
}

/** Counts a read against its user's cap (429 past it); returns its release, good once. */
function enterUser(services: ServerServices, userId: string): () => void {
  const state = stateOf(services);
  const cap = services.limits.maxHeavyReadsPerUser;
  const mine = state.perUser.get(userId) ?? 0;
  if (cap > 0 && mine >= cap) {
    const message = `At most ${cap} whole-session reads at once per user; page with GET …/entries or retry`;
    throw new HttpError(429, "rate_limited", message, { "Retry-After": "1" });
  }
  state.perUser.set(userId, mine + 1);
  return once(() => {
    const still = (state.perUser.get(userId) ?? 1) - 1;
    if (still <= 0) state.perUser.delete(userId);
    else state.perUser.set(userId, still);
  });
}

/** Takes one of the instance's running slots, waiting in arrival order; returns its release, good once. */
async function enterInstance(services: ServerServices): Promise<() => void> {
  const state = stateOf(services);
  const max = services.limits.maxHeavyReads;
  // A finishing read hands its slot straight to the next in line, so none can slip in between.
  if (max > 0 && state.running >= max) await new Promise<void>((resolve) => state.waiting.push(resolve));
  else state.running++;
  return once(() => {
    const next = state.waiting.shift();
    if (next) next();
    else state.running--;
  });
}

function once(release: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    release();
  };
}
