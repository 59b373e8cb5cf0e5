import assert from "node:assert/strict";
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import { readSessionFile } from "../../src/file/read-file.js";
import { indexPathFor } from "../../src/file/sidecar-index.js";
import { catalogDirOf, FolderCatalog } from "../../src/session/catalog.js";
import { openPathOnly } from "../../src/session/context-resume.js";
import { listSessions } from "../../src/session/list.js";
import { listingShapeOf } from "../../src/session/listing-shape.js";
import type { SessionInfo } from "../../src/session/session-info.js";
import { SessionManager } from "../../src/session/session-manager.js";
import { messageMaker } from "../support/messages.js";

const CWD = "/work/project";
const root = mkdtempSync(join(tmpdir(), "st-catalog-"));
after(() => rmSync(root, { recursive: true, force: true }));
const cache = join(root, "cache");
process.env.SESSIONTREE_CACHE_DIR = cache;
let folders = 0;

const { user, assistant } = messageMaker();

function writeSession(dir: string, turns: number, name?: string): string {
  const sm = SessionManager.create(CWD, dir);
  for (let i = 0; i < turns; i++) {
    sm.appendMessage(user(`question ${i} about ${dir.length}`));
    sm.appendMessage(assistant(`answer ${i}`));
  }
  if (name) sm.appendSessionInfo(name);
  const path = sm.getSessionFile() as string;
  sm.close();
  return path;
}

function newFolder(sessions: number): { dir: string; paths: string[] } {
  const dir = join(root, `f${++folders}`);
  mkdirSync(dir, { recursive: true });
  const paths = Array.from({ length: sessions }, (_, i) =>
    writeSession(dir, 1 + i, i % 2 ? `name ${i}` : undefined),
  );
  return { dir, paths };
}

/** Listing fields as plain values (allMessagesText read through its getter), sorted by path. */
function plain(infos: readonly SessionInfo[]): Record<string, unknown>[] {
  return infos
    .map((info) => ({ ...info, allMessagesText: info.allMessagesText }))
    .sort((a, b) => a.path.localeCompare(b.path));
}

async function assertListsLikePi(dir: string): Promise<SessionInfo[]> {
  const ours = await listSessions([dir]);
  const pi = (await PiSessionManager.list(CWD, dir)) as unknown as SessionInfo[];
  assert.deepEqual(plain(ours), plain(pi));
  return ours;
}

/** One listing pass through the catalog, returning what it did. */
function pass(dir: string) {
  const catalog = new FolderCatalog(dir);
  const infos = readdirSync(dir)
    .filter((name) => name.endsWith(".jsonl"))
    .map((name) => catalog.info(join(dir, name)));
  catalog.save();
  return { stats: catalog.stats, infos };
}

describe("session catalog: listing does not re-read unchanged files, and is never stale", () => {
  test("lists exactly what pi lists, first and repeated call", async () => {
    const { dir } = newFolder(6);
    await assertListsLikePi(dir);
    await assertListsLikePi(dir);
  });

  test("a repeated pass reuses every record; a grown file is read from where it stopped", async () => {
    const { dir, paths } = newFolder(5);
    assert.equal(pass(dir).stats.read, 5);
    assert.deepEqual(pass(dir).stats, { reused: 5, extended: 0, read: 0, removed: 0 });
    const sm = SessionManager.open(paths[2] as string);
    sm.appendMessage(user("a later question with a needle in it"));
    sm.close();
    assert.deepEqual(pass(dir).stats, { reused: 4, extended: 1, read: 0, removed: 0 });
    const listed = await assertListsLikePi(dir);
    assert.ok(listed.some((info) => info.allMessagesText.endsWith("a later question with a needle in it")));
  });

  test("new and deleted files are picked up", async () => {
    const { dir, paths } = newFolder(3);
    await assertListsLikePi(dir);
    openPathOnly(paths[0] as string);
    assert.ok(existsSync(indexPathFor(paths[0] as string)));
    rmSync(paths[0] as string);
    writeSession(dir, 4, "newcomer");
    const { stats } = pass(dir);
    assert.equal(stats.removed, 1);
    assert.equal(existsSync(indexPathFor(paths[0] as string)), false, "the gone session's index is removed");
    assert.equal(stats.read, 1);
    const listed = await assertListsLikePi(dir);
    assert.equal(listed.length, 3);
    assert.ok(listed.some((info) => info.name === "newcomer"));
  });

  test("a file edited behind the catalog's back is read again in full", async () => {
    const { dir, paths } = newFolder(3);
    await assertListsLikePi(dir);
    const path = paths[1] as string;
    writeFileSync(path, readFileSync(path, "utf8").replace("question 0", "QUESTION ZERO, edited"));
    assert.equal(pass(dir).stats.read, 1);
    const listed = await assertListsLikePi(dir);
    assert.ok(listed.some((info) => info.firstMessage.startsWith("QUESTION ZERO")));
  });

  test("an edit plus an append (covered bytes changed) is not mistaken for an append", async () => {
    const { dir, paths } = newFolder(2);
    await assertListsLikePi(dir);
    const path = paths[0] as string; // its last line is an assistant message
    const text = readFileSync(path, "utf8");
    const lastLine = text.trimEnd().split("\n").at(-1) as string;
    const edited = text.replace(lastLine, lastLine.replace("answer", "ANSWER"));
    assert.notEqual(edited, text);
    writeFileSync(path, `${edited}${lastLine.replace(/"id":"[^"]+"/, '"id":"zz999999"')}\n`);
    assert.equal(pass(dir).stats.read, 1);
    await assertListsLikePi(dir);
  });

  test("a truncated file is read again", async () => {
    const { dir, paths } = newFolder(2);
    await assertListsLikePi(dir);
    const path = paths[1] as string;
    const lines = readFileSync(path, "utf8").split("\n");
    truncateSync(path, Buffer.byteLength(`${lines.slice(0, 3).join("\n")}\n`));
    assert.equal(pass(dir).stats.read, 1);
    await assertListsLikePi(dir);
  });

  test("a missing or corrupt catalog is rebuilt; a lost text file is read from the session", async () => {
    const { dir } = newFolder(3);
    await assertListsLikePi(dir);
    const catalogDir = catalogDirOf(dir);
    for (const name of readdirSync(catalogDir).filter((n) => n.startsWith("texts-"))) {
      rmSync(join(catalogDir, name));
    }
    await assertListsLikePi(dir);
    writeFileSync(join(catalogDir, "catalog.json"), "{ not json");
    assert.equal(pass(dir).stats.read, 3);
    await assertListsLikePi(dir);
    rmSync(catalogDir, { recursive: true });
    await assertListsLikePi(dir);
  });

  test("files that are not sessions are skipped, as pi skips them", async () => {
    const { dir } = newFolder(2);
    writeFileSync(join(dir, "junk.jsonl"), "this is not a session\n");
    writeFileSync(join(dir, "empty.jsonl"), "");
    const listed = await assertListsLikePi(dir);
    assert.equal(listed.length, 2);
    await assertListsLikePi(dir);
  });

  test("a torn tail is not listed, and counts once it is completed", async () => {
    const { dir, paths } = newFolder(1);
    const path = paths[0] as string;
    const message = user("completed later");
    const line = JSON.stringify({
      type: "message",
      id: "tt000001",
      parentId: null,
      timestamp: new Date(message.timestamp).toISOString(),
      message,
    });
    appendFileSync(path, line.slice(0, 40));
    const [before] = await listSessions([dir]);
    appendFileSync(path, `${line.slice(40)}\n`);
    const [afterwards] = await assertListsLikePi(dir);
    assert.equal((afterwards as SessionInfo).messageCount, (before as SessionInfo).messageCount + 1);
  });
});

describe("the catalog lives in sessiontree's cache directory, never in the session folder", () => {
  /** Every name in the folder with its size and mtime. */
  function listing(dir: string): string[] {
    return readdirSync(dir)
      .sort()
      .map((name) => {
        const stats = statSync(join(dir, name));
        return `${name} ${stats.size} ${stats.mtimeMs}`;
      });
  }

  test("listing, extending and searching write nothing into the folder; the cache is private", async () => {
    const { dir, paths } = newFolder(3);
    const before = listing(dir);
    await assertListsLikePi(dir);
    assert.deepEqual(listing(dir), before);
    const sm = SessionManager.open(paths[1] as string);
    sm.appendMessage(user("one more"));
    sm.close();
    const grown = listing(dir);
    assert.deepEqual(pass(dir).stats, { reused: 2, extended: 1, read: 0, removed: 0 });
    assert.ok((await listSessions([dir])).some((info) => info.allMessagesText.includes("one more")));
    assert.deepEqual(listing(dir), grown);
    const catalogDir = catalogDirOf(dir);
    assert.ok(catalogDir.startsWith(cache));
    assert.equal(statSync(catalogDir).mode & 0o777, 0o700);
    for (const name of readdirSync(catalogDir))
      assert.equal(statSync(join(catalogDir, name)).mode & 0o777, 0o600, name);
  });

  test("a catalog left in the folder by an earlier version is neither read nor touched", async () => {
    const { dir } = newFolder(2);
    const old = join(dir, ".sessiontree-catalog");
    mkdirSync(old);
    writeFileSync(join(old, "catalog.json"), JSON.stringify({ version: 2, records: { bogus: {} } }));
    const before = listing(old);
    assert.equal(pass(dir).stats.read, 2);
    await assertListsLikePi(dir);
    assert.deepEqual(listing(old), before);
  });

  test("a cache that cannot be written is skipped: the listing still answers", async () => {
    const { dir } = newFolder(2);
    const blocked = join(root, "not-a-folder");
    writeFileSync(blocked, "a file where the cache folder would be");
    process.env.SESSIONTREE_CACHE_DIR = blocked;
    try {
      await assertListsLikePi(dir);
      assert.equal(pass(dir).stats.read, 2, "nothing was saved, so everything is read again");
    } finally {
      process.env.SESSIONTREE_CACHE_DIR = cache;
    }
  });

  test("the tree's counts (ls) come from the record, and stay exact as a file grows and branches", () => {
    const { dir, paths } = newFolder(3);
    const path = paths[1] as string;
    // A whole pass, as ls makes: a pass forgets the records of files it did not see.
    const shapeNow = () => {
      const catalog = new FolderCatalog(dir);
      for (const other of paths) catalog.info(other);
      const shape = catalog.shape(path);
      catalog.save();
      return shape;
    };
    const wholeRead = () => {
      const decoded = readSessionFile(path);
      return listingShapeOf(
        decoded.entries.map((e) => e.entry),
        decoded.issues.length,
      );
    };
    pass(dir);
    const saved = JSON.parse(readFileSync(join(catalogDirOf(dir), "catalog.json"), "utf8"));
    assert.deepEqual(saved.records[path.slice(dir.length + 1)].shape, wholeRead(), "kept by the first pass");
    assert.deepEqual(shapeNow(), { entryCount: 5, branchCount: 1, issueCount: 0 }, "2 turns and a name");

    const sm = SessionManager.open(path);
    const first = sm.getEntries()[0]?.id as string;
    sm.appendMessage(user("one more"));
    sm.branch(first);
    sm.appendMessage(user("a second branch"));
    sm.close();
    assert.deepEqual(pass(dir).stats, { reused: 2, extended: 1, read: 0, removed: 0 });
    assert.deepEqual(shapeNow(), wholeRead());
    assert.equal(wholeRead().branchCount, 2);
    // A torn tail is an issue; once the writer finishes the line it is gone again.
    appendFileSync(path, '{"type":"message","id":"torn');
    assert.deepEqual(shapeNow(), { ...wholeRead(), issueCount: 1 });
    assert.deepEqual(shapeNow(), wholeRead(), "read from the record the pass before kept");
  });
});
