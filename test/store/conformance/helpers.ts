import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import type { SessionEntry } from "../../../src/core/entry.js";
import type { SessionStore, StoreCapabilities } from "../../../src/store/store.js";

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

let clock = Date.parse("2026-01-01T00:00:00.000Z");
/** Distinct, increasing timestamps so tree order by time is well defined. */
export function ts(): string {
  clock += 1000;
  return new Date(clock).toISOString();
}

export function userMessage(id: string, parentId: string | null, text: string): SessionEntry {
  return {
    type: "message",
    id,
    parentId,
    timestamp: ts(),
    message: { role: "user", content: [{ type: "text", text }], timestamp: 1 },
  } as SessionEntry;
}

export function assistantMessage(
  id: string,
  parentId: string | null,
  text: string,
  model = "m-1",
): SessionEntry {
  return {
    type: "message",
    id,
    parentId,
    timestamp: ts(),
    message: {
      role: "assistant",
      content: [{ type: "text", text }],
      provider: "p",
      model,
      api: "x",
      usage: { input: 1, output: 1 },
      stopReason: "stop",
      timestamp: 2,
    },
  } as SessionEntry;
}

/** A linear chain of alternating user/assistant messages, ids `${prefix}-0…`, under `parentId`. */
export function chain(prefix: string, count: number, parentId: string | null = null): SessionEntry[] {
  const entries: SessionEntry[] = [];
  let parent = parentId;
  for (let i = 0; i < count; i++) {
    const id = `${prefix}-${i}`;
    entries.push(
      i % 2 === 0
        ? userMessage(id, parent, `${prefix} question ${i}`)
        : assistantMessage(id, parent, `answer ${i}`),
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
