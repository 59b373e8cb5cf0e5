import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { blobPath, ownerSegment } from "../../../src/store/blob/blob-store.js";
import { FsBlobStore } from "../../../src/store/blob/fs-blob-store.js";
import { openBlobStore } from "../../../src/store/blob/open-blob-store.js";
import { blobSpec, newOwner } from "./blob-spec.js";

describe("blob store: the filesystem", () => {
  const root = mkdtempSync(join(tmpdir(), "sessiontree-blobs-"));
  const store = new FsBlobStore(root);
  after(() => rmSync(root, { recursive: true, force: true }));

  blobSpec({
    store: () => store,
    tamper: async (owner, sha256, bytes) => writeFileSync(join(root, blobPath(owner, sha256)), bytes),
    litter: async (owner, name) => {
      const dir = join(root, ownerSegment(owner), "ab");
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, name), "half a blob");
    },
  });

  it("keeps blobs private to the user and leaves no temp file", async () => {
    const owner = newOwner();
    const { sha256 } = await store.put(owner, Buffer.from("private"));
    const file = join(root, blobPath(owner, sha256));
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(statSync(join(root, ownerSegment(owner))).mode & 0o777, 0o700);
    assert.deepEqual(readdirSync(join(file, "..")), [sha256]);
  });

  it("is what openBlobStore gives for file: locations and plain paths", async () => {
    for (const location of [`file:${root}`, `file://${root}`, root]) {
      const opened = await openBlobStore(location);
      assert.ok(opened instanceof FsBlobStore);
      assert.equal(opened.root, root);
    }
    await assert.rejects(openBlobStore("ftp://host/x"), { code: "invalid_argument" });
  });
});
