import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, it } from "node:test";
import { Command } from "commander";
import { register } from "../../../src/cli/commands/archive.js";
import { FsBlobStore } from "../../../src/store/blob/fs-blob-store.js";
import { SqliteStore } from "../../../src/store/sqlite/index.js";
import { smallUser, userWithImage } from "./payload-entries.js";

const data = mkdtempSync(join(tmpdir(), "sessiontree-archive-cli-"));
after(() => rmSync(data, { recursive: true, force: true }));

/** `sessiontree archive …` in this process; what it printed. */
async function archive(...args: string[]): Promise<string> {
  const program = new Command("sessiontree").option("--json").exitOverride();
  register(program);
  const printed: string[] = [];
  const log = console.log;
  console.log = (...parts: unknown[]) => printed.push(parts.join(" "));
  try {
    await program.parseAsync(["node", "sessiontree", "archive", ...args, "--data", data]);
  } finally {
    console.log = log;
  }
  return printed.join("\n");
}

/** The service's store in the data folder, with its default blob store (file: under the data folder). */
function open(): SqliteStore {
  return new SqliteStore({
    path: join(data, "sessiontree.db"),
    blobs: { store: new FsBlobStore(join(data, "blobs")) },
  });
}

it("archive --older-than, then --restore, on the data folder the service uses", async () => {
  let store = open();
  await store.init();
  const { id } = await store.createSession("user-1");
  const entries = [userWithImage("a", null), smallUser("b", "a")];
  await store.appendEntries("user-1", id, entries);
  await store.close();

  assert.match(await archive("--older-than", "1d"), /archived 0 sessions/);
  await new Promise((resolve) => setTimeout(resolve, 1100));
  const report = JSON.parse(await archive("--older-than", "1s", "--json")) as { archived: unknown[] };
  assert.equal(report.archived.length, 1);

  store = open();
  await store.init();
  assert.ok((await store.getSummary("user-1", id)).archivedAt);
  await store.close();
  assert.match(await archive("--restore"), /restored 1 session$/);
  store = open();
  await store.init();
  const summary = await store.getSummary("user-1", id);
  assert.equal(summary.archivedAt, undefined);
  assert.deepEqual(await store.readBranch("user-1", id), entries);
  await store.close();
  assert.ok(readdirSync(join(data, "blobs")).length > 0);
});
