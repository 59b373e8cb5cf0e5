import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { it } from "node:test";
import type { BlobInfo, BlobStore } from "../../../src/store/blob/blob-store.js";

/** What the suite needs of a backend beyond the interface: a way to damage a blob behind its back. */
export interface BlobSpecContext {
  store: () => BlobStore;
  /** Replaces the stored bytes of a blob without going through the store (a disk or bucket fault). */
  tamper: (owner: string, sha256: string, bytes: Uint8Array) => Promise<void>;
  /** Drops a file or object the store did not write among its blobs (a temp file, another tool's). */
  litter: (owner: string, name: string) => Promise<void>;
}

let counter = 0;
/** An owner id no other test uses, so tests share a store without seeing each other. */
export function newOwner(label = "user"): string {
  counter += 1;
  return `${label}-${counter}-${randomBytes(3).toString("hex")}`;
}

function sha(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

async function all(list: AsyncIterable<BlobInfo>): Promise<BlobInfo[]> {
  const out: BlobInfo[] = [];
  for await (const info of list) out.push(info);
  return out;
}

async function rejectsWithCode(promise: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(promise, (error: { code?: string }) => {
    assert.equal(error.code, code);
    return true;
  });
}

export function blobSpec(ctx: BlobSpecContext): void {
  it("puts bytes under their SHA-256 and gives them back, checked", async () => {
    const owner = newOwner();
    const bytes = randomBytes(10_000);
    const ref = await ctx.store().put(owner, bytes);
    assert.deepEqual(ref, { sha256: sha(bytes), size: 10_000 });
    assert.equal(await ctx.store().has(owner, ref.sha256), true);
    assert.deepEqual(Buffer.from(await ctx.store().get(owner, ref.sha256)), bytes);
  });

  it("writes once: the same bytes again change nothing and list one blob", async () => {
    const owner = newOwner();
    const bytes = Buffer.from("the same screenshot");
    const first = await ctx.store().put(owner, bytes);
    const [before] = await all(ctx.store().list(owner));
    const again = await ctx.store().put(owner, Buffer.from(bytes));
    assert.deepEqual(again, first);
    const after = await all(ctx.store().list(owner));
    assert.equal(after.length, 1);
    assert.equal(after[0]?.modifiedAt.getTime(), before?.modifiedAt.getTime(), "not rewritten");
  });

  it("keeps owners apart: another owner's hash answers like a missing blob, and the same bytes are two blobs", async () => {
    const alice = newOwner("alice");
    const bob = newOwner("bob");
    const bytes = randomBytes(2048);
    const { sha256 } = await ctx.store().put(alice, bytes);
    assert.equal(await ctx.store().has(bob, sha256), false);
    await rejectsWithCode(ctx.store().get(bob, sha256), "blob_not_found");
    await ctx.store().delete(bob, sha256); // bob cannot delete alice's blob either
    assert.equal(await ctx.store().has(alice, sha256), true);
    assert.deepEqual(await all(ctx.store().list(bob)), []);
    await ctx.store().put(bob, bytes);
    await ctx.store().delete(bob, sha256);
    assert.deepEqual(Buffer.from(await ctx.store().get(alice, sha256)), bytes, "alice's copy is her own");
  });

  it("takes any owner id: slashes, dots, unicode and look-alikes never share a namespace", async () => {
    const owners = [`${newOwner()}/x`, newOwner(), "..", ".", "ünïcødé 👤", "a", "a/", "o-YQ"];
    const bytes = randomBytes(64);
    const hash = sha(bytes);
    await ctx.store().put(owners[0] as string, bytes);
    for (const owner of owners.slice(1)) assert.equal(await ctx.store().has(owner, hash), false, owner);
    for (const owner of owners.slice(1)) await ctx.store().put(owner, Buffer.from(`${owner}!`));
    const listed = (await all(ctx.store().list(owners[0]))).map((info) => info.owner);
    assert.deepEqual(listed, [owners[0]]);
  });

  it("deletes, and deleting a missing blob is not an error", async () => {
    const owner = newOwner();
    const { sha256 } = await ctx.store().put(owner, Buffer.from("to be swept"));
    await ctx.store().delete(owner, sha256);
    assert.equal(await ctx.store().has(owner, sha256), false);
    await rejectsWithCode(ctx.store().get(owner, sha256), "blob_not_found");
    await ctx.store().delete(owner, sha256);
  });

  it("never returns wrong bytes: a blob changed behind the store's back is blob_corrupt", async () => {
    const owner = newOwner();
    const { sha256 } = await ctx.store().put(owner, Buffer.from("original bytes"));
    await ctx.tamper(owner, sha256, Buffer.from("original bytez"));
    await rejectsWithCode(ctx.store().get(owner, sha256), "blob_corrupt");
    await ctx.tamper(owner, sha256, new Uint8Array());
    await rejectsWithCode(ctx.store().get(owner, sha256), "blob_corrupt");
  });

  it("a put over a blob cut short (or emptied) writes it whole again", async () => {
    const owner = newOwner();
    const bytes = Buffer.from("the whole payload, every byte of it");
    const { sha256 } = await ctx.store().put(owner, bytes);
    for (const damaged of [bytes.subarray(0, 9), new Uint8Array()]) {
      await ctx.tamper(owner, sha256, damaged);
      await ctx.store().put(owner, bytes);
      assert.deepEqual(Buffer.from(await ctx.store().get(owner, sha256)), bytes);
    }
  });

  it("refuses a malformed hash as a missing blob, before it reaches a path or a key", async () => {
    const owner = newOwner();
    const { sha256 } = await ctx.store().put(owner, Buffer.from("x"));
    for (const bad of [
      "",
      "../../etc/passwd",
      sha256.toUpperCase(),
      `${sha256}0`,
      sha256.slice(1),
      `../${sha256}`,
    ]) {
      await rejectsWithCode(ctx.store().get(owner, bad), "blob_not_found");
      await rejectsWithCode(ctx.store().has(owner, bad), "blob_not_found");
      await rejectsWithCode(ctx.store().delete(owner, bad), "blob_not_found");
    }
  });

  it("lists an owner's blobs with size and time, and every owner's for a sweep, skipping what it did not write", async () => {
    const owner = newOwner();
    const other = newOwner();
    const started = Date.now() - 60_000; // a server clock a little off is fine; an epoch is not
    const a = await ctx.store().put(owner, randomBytes(10));
    const b = await ctx.store().put(owner, randomBytes(20));
    const c = await ctx.store().put(other, randomBytes(30));
    await ctx.litter(owner, "not-a-blob.tmp-123");
    const mine = await all(ctx.store().list(owner));
    assert.deepEqual(
      mine.map((info) => [info.sha256, info.size]).sort(),
      [
        [a.sha256, 10],
        [b.sha256, 20],
      ].sort(),
    );
    for (const info of mine) {
      assert.equal(info.owner, owner);
      assert.ok(info.modifiedAt.getTime() > started, String(info.modifiedAt));
    }
    const everyone = await all(ctx.store().list());
    const keys = new Set(everyone.map((info) => `${info.owner} ${info.sha256}`));
    for (const [o, ref] of [
      [owner, a],
      [owner, b],
      [other, c],
    ] as const)
      assert.ok(keys.has(`${o} ${ref.sha256}`));
  });

  it("round-trips an empty blob and a 6 MB one", async () => {
    const owner = newOwner();
    const empty = await ctx.store().put(owner, new Uint8Array());
    assert.equal(empty.size, 0);
    assert.equal((await ctx.store().get(owner, empty.sha256)).byteLength, 0);
    const big = randomBytes(6 * 1024 * 1024);
    const ref = await ctx.store().put(owner, big);
    assert.ok(Buffer.from(await ctx.store().get(owner, ref.sha256)).equals(big));
  });

  it("takes the same bytes from many writers at once and keeps one good blob", async () => {
    const owner = newOwner();
    const bytes = randomBytes(256 * 1024);
    const refs = await Promise.all(
      Array.from({ length: 8 }, () => ctx.store().put(owner, Buffer.from(bytes))),
    );
    assert.equal(new Set(refs.map((ref) => ref.sha256)).size, 1);
    assert.equal((await all(ctx.store().list(owner))).length, 1);
    assert.ok(Buffer.from(await ctx.store().get(owner, sha(bytes))).equals(bytes));
  });
}
