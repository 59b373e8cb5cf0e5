import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import type { SessionEntry } from "../../../src/core/entry.js";
import type { SessionStore, StoreCapabilities } from "../../../src/store/store.js";
import { entryMaker } from "../../support/messages.js";

/** What a backend's test file hands to `runConformance`. */
export interface ConformanceTarget {
  name: string;
  /** A store on the backend's location for this run; called again to reopen it (persistence). */
  create(): Promise<SessionStore>;
  destroy?(store: SessionStore): Promise<void>;
  capabilities: StoreCapabilities;
}

/** What each spec receives: the shared store of the run (opened in `before`) and its target. */
export interface SpecContext {
  target: ConformanceTarget;
  store(): SessionStore;
}

/** A fresh owner per test: suites share one database and never truncate it. */
export function newOwner(): string {
  return `owner-${randomUUID()}`;
}

/**
 * Entries for every spec: one clock for the run, so timestamps increase across suites sharing a
 * database and tree order by time is well defined.
 */
export const make = entryMaker();

/** A linear chain of alternating user/assistant messages, ids `${prefix}-0…`, under `parentId`. */
export function chain(prefix: string, count: number, parentId: string | null = null): SessionEntry[] {
  const entries: SessionEntry[] = [];
  let parent = parentId;
  for (let i = 0; i < count; i++) {
    const id = `${prefix}-${i}`;
    entries.push(
      i % 2 === 0
        ? make.user(id, parent, `${prefix} question ${i}`)
        : make.assistant(id, parent, `answer ${i}`),
    );
    parent = id;
  }
  return entries;
}

/** Asserts that a promise rejects with a sessiontree error of this code, and returns the error. */
export async function rejectsWith(
  promise: Promise<unknown>,
  code: string,
): Promise<Error & Record<string, unknown>> {
  let caught: unknown;
  try {
    await promise;
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof Error, `expected a rejection with code ${code}, got success`);
  assert.equal(
    (caught as Error & { code?: string }).code,
    code,
    `unexpected error: ${(caught as Error).message}`,
  );
  return caught as Error & Record<string, unknown>;
}

export function ids(entries: readonly SessionEntry[]): string[] {
  return entries.map((entry) => entry.id);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * A session shaped root → a → b, with a second branch a → c → d and a third root r2; the leaf
 * is d. The branch reads' specs share it.
 */
export async function forkedSession(
  ctx: SpecContext,
): Promise<{ owner: string; id: string; revision: number }> {
  const owner = newOwner();
  const { id } = await ctx.store().createSession(owner);
  await ctx
    .store()
    .appendEntries(owner, id, [
      make.user("root", null, "start"),
      make.assistant("a", "root", "reply"),
      make.user("b", "a", "first way"),
      make.user("c", "a", "second way"),
      make.assistant("d", "c", "second reply"),
      make.user("r2", null, "another root"),
    ]);
  const { revision } = await ctx.store().setLeaf(owner, id, "d");
  return { owner, id, revision };
}
