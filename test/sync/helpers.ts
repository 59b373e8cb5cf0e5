import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before } from "node:test";
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import { SessionTreeClient } from "../../src/client/client.js";
import { LEAF_MARKER_TYPE, type SessionEntry } from "../../src/core/entry.js";
import { sessionsDir } from "../../src/file/paths.js";
import { SessionFile } from "../../src/file/session-file.js";
import { sessionFilesIn, sessionFoldersIn } from "../../src/session/locate.js";
import { SessionManager } from "../../src/session/session-manager.js";
import { countingFetch, type TransferCount } from "../../src/sync/counting-fetch.js";
import type { LeafMode } from "../../src/sync/leaf.js";
import { type SyncReport, syncRoot } from "../../src/sync/sync.js";
import { startTestServer, type TestServer } from "../server/helpers.js";
import { messageMaker } from "../support/messages.js";

const turnMessages = messageMaker();

/** A session of `cwd` under `root` with `turns` user/assistant turns; returns its id and file. */
export function makeSession(root: string, cwd: string, turns: number): { id: string; path: string } {
  const manager = SessionManager.create(cwd, undefined, { root });
  for (let i = 0; i < turns; i++) {
    manager.appendMessage(turnMessages.user(`question ${i}`));
    manager.appendMessage(turnMessages.assistant(`answer ${i}`));
  }
  const out = { id: manager.getSessionId(), path: manager.getSessionFile() as string };
  manager.close();
  return out;
}

/** A throwaway folder, removed by `cleanup()`. */
export function tempDir(prefix: string): { path: string; cleanup(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}

/** Two roots (`a`, `b`) with their sync state folders, and a service on SQLite with alice's key. */
export interface SyncWorld {
  server: TestServer;
  key: string;
  dir: string;
  rootA: string;
  rootB: string;
  stateA: string;
  stateB: string;
}

/**
 * A suite's `SyncWorld`: the service starts before the suite's tests and stops after them, and
 * the folders are removed then. `server` and `key` are set once the suite starts.
 */
export function syncWorld(prefix: string): SyncWorld {
  const dirs = tempDir(prefix);
  const world = {
    dir: dirs.path,
    rootA: join(dirs.path, "a"),
    rootB: join(dirs.path, "b"),
    stateA: join(dirs.path, "state-a"),
    stateB: join(dirs.path, "state-b"),
  } as SyncWorld;
  before(async () => {
    world.server = await startTestServer("sqlite");
    world.key = await world.server.key("alice");
  });
  after(async () => {
    await world.server?.close();
    dirs.cleanup();
  });
  return world;
}

export interface SyncRun {
  report: SyncReport;
  bytes: TransferCount;
}

/** One in-process sync of `root` with the service at `url`, its state kept in `stateDir`. */
export async function syncOnce(
  root: string,
  url: string,
  key: string,
  stateDir: string,
  options: { leaf?: LeafMode; dryRun?: boolean } = {},
): Promise<SyncRun> {
  const counted = countingFetch();
  const remote = new SessionTreeClient({ baseUrl: url, token: key, fetch: counted.fetch });
  const report = await syncRoot({
    root,
    remote,
    server: url,
    credentialId: "test",
    statePath: join(stateDir, "state.json"),
    ...options,
  });
  return { report, bytes: counted.count };
}

/** Every session file of a root, by session id. */
export function filesById(root: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const path of sessionFoldersIn(sessionsDir(root)).flatMap(sessionFilesIn)) {
    const file = SessionFile.open(path);
    out.set(file.header.id, path);
    file.close();
  }
  return out;
}

/** The entries of a file (leaf markers that are bookkeeping left out) and where it opens. */
export function readFile(path: string): { entries: SessionEntry[]; leaf: string | null } {
  const file = SessionFile.open(path);
  try {
    return { entries: file.tree.getEntries(), leaf: file.tree.getLeafId() };
  } finally {
    file.close();
  }
}

/**
 * pi 0.73.1 opens the file and builds its context. pi's leaf is the last line; when that is one of
 * our leaf markers (a `custom` entry, no context) the leaf that counts is the marker's parent.
 */
export function openInPi(path: string): { leaf: string | null; entries: number; messages: number } {
  const pi = PiSessionManager.open(path);
  const context = pi.buildSessionContext();
  const last = pi.getLeafEntry() as
    | { type: string; customType?: string; parentId: string | null }
    | undefined;
  const marker = last?.type === "custom" && last.customType === LEAF_MARKER_TYPE;
  return {
    leaf: marker ? (last?.parentId ?? null) : pi.getLeafId(),
    entries: pi.getEntries().length,
    messages: context.messages.length,
  };
}
