import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import { SessionManager } from "../../../src/session/session-manager.js";
import { assertSameSession, type Pair, SAME_IDS } from "./pair.js";

/** pi's three context fields of our richer projection. */
export function piFields(context: { messages: unknown[]; thinkingLevel: string; model: unknown }) {
  return { messages: context.messages, thinkingLevel: context.thinkingLevel, model: context.model };
}

/** How many cross-reads of each kind ran: a caller can check they were not all skipped. */
export const crossReads = { ourFile: 0, piFile: 0 };

/**
 * Cross-reads both files of an on-disk pair:
 * - ours reopening our file sees exactly the live session (the leaf survives a restart);
 * - pi reading our file builds the same context as ours, and does not change the file;
 * - ours and pi reading pi's file see the same session.
 */
export function assertFilesAgree(pair: Pair, where: string): void {
  const ourFile = pair.ours.getSessionFile();
  if (ourFile && existsSync(ourFile)) {
    crossReads.ourFile++;
    const reopened = SessionManager.open(ourFile);
    try {
      assertSameSession(reopened, pair.ours, SAME_IDS, `${where}: ours reopened`, { deep: true });
    } finally {
      reopened.close();
    }
    const before = readFileSync(ourFile);
    const piReading = PiSessionManager.open(ourFile);
    assert.deepEqual(
      piReading.buildSessionContext(),
      piFields(pair.ours.buildSessionContext()),
      `${where}: pi reading our file`,
    );
    assert.deepEqual(readFileSync(ourFile), before, `${where}: pi's reading changed our file`);
  }
  const piFile = pair.pi.getSessionFile();
  if (piFile && existsSync(piFile)) {
    crossReads.piFile++;
    const ours = SessionManager.open(piFile);
    const pi = PiSessionManager.open(piFile);
    try {
      assertSameSession(ours, pi, SAME_IDS, `${where}: reading pi's file`, { deep: true });
      assert.deepEqual(
        piFields(ours.buildSessionContext()),
        pi.buildSessionContext(),
        `${where}: exact context`,
      );
    } finally {
      ours.close();
    }
  }
}

/** Tracks one file's bytes: each check asserts the earlier bytes are a prefix of the current ones. */
export class AppendOnlyWatch {
  private path: string | undefined;
  private bytes = Buffer.alloc(0);

  check(path: string | undefined, where: string): void {
    if (!path || !existsSync(path)) return;
    const now = readFileSync(path);
    if (path === this.path) {
      assert.ok(now.length >= this.bytes.length, `${where}: ${path} shrank`);
      assert.ok(now.subarray(0, this.bytes.length).equals(this.bytes), `${where}: stored bytes changed`);
    }
    this.path = path;
    this.bytes = now;
  }
}
