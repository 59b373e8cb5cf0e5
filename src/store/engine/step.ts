/**
 * The store's rules are written once, as flows (generators) that yield each question they put to a
 * driver and are resumed with its answer. A driver answers with a value (memory, SQLite, JSONL:
 * they must, because better-sqlite3 transactions and the JSONL file lock run a synchronous
 * callback) or with a promise (PostgreSQL). `runFlow` then runs a flow synchronously for as long as
 * the answers are values, so the synchronous drivers keep their one-callback atomicity.
 */

/** A driver's answer: a value, or a promise of one. */
export type DriverStep<T> = T | PromiseLike<T>;

/** A store operation written once: yields driver answers, returns its result. */
export type StoreFlow<T> = Generator<unknown, T, unknown>;

/** `const found = yield* wait(tx.find())`: a driver's answer inside a flow, typed. */
export function* wait<T>(step: DriverStep<T>): Generator<DriverStep<T>, T, unknown> {
  return (yield step) as T;
}

/** Runs a flow: synchronously while the driver answers with values, as a promise from its first promise on. */
export function runFlow<T>(flow: StoreFlow<T>): DriverStep<T> {
  let next = flow.next();
  while (!next.done) {
    if (isThenable(next.value)) return finishAsync(flow, next.value);
    next = flow.next(next.value);
  }
  return next.value;
}

async function finishAsync<T>(flow: StoreFlow<T>, pending: PromiseLike<unknown>): Promise<T> {
  let next = await resumeWith(flow, pending);
  while (!next.done) {
    const value = next.value;
    next = isThenable(value) ? await resumeWith(flow, value) : flow.next(value);
  }
  return next.value;
}

/** Resumes the flow with an awaited answer; a rejection is thrown into the flow, so its try/finally runs. */
async function resumeWith<T>(flow: StoreFlow<T>, pending: PromiseLike<unknown>) {
  let answer: unknown;
  try {
    answer = await pending;
  } catch (reason) {
    return flow.throw(reason);
  }
  return flow.next(answer);
}

/**
 * The value of a step a synchronous driver produced. A promise here is a driver bug: the work
 * would escape the transaction (or the file lock) it was meant to run in.
 */
export function syncValue<T>(step: DriverStep<T>, driver: string): T {
  if (isThenable(step)) throw new Error(`${driver}: a synchronous driver answered with a promise`);
  return step;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === "function";
}
