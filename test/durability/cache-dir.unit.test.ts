/**
 * sessiontree's cache directory (src/file/cache-dir.ts): where it is on each platform, that what it
 * writes is private, and that a cache which cannot be written is skipped, never an error.
 */
import assert from "node:assert/strict";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { cachePathFor, cacheRoot, writeCacheFile } from "../../src/file/cache-dir.js";
import { tempDir } from "./support.js";

const { dir, cleanup } = tempDir("cache-dir");
after(cleanup);

/** Runs `fn` with HOME set to `home` (os.homedir() reads it). */
function withHome<T>(home: string, fn: () => T): T {
  const saved = process.env.HOME;
  process.env.HOME = home;
  try {
    return fn();
  } finally {
    process.env.HOME = saved;
  }
}

describe("where the cache is", () => {
  const home = join(dir, "home");

  it("SESSIONTREE_CACHE_DIR wins everywhere", () => {
    for (const platform of ["linux", "darwin", "win32"] as const)
      assert.equal(cacheRoot({ SESSIONTREE_CACHE_DIR: join(dir, "c") }, platform), join(dir, "c"));
  });

  it("Linux: $XDG_CACHE_HOME/sessiontree, ~/.cache/sessiontree without it or when it is relative", () => {
    withHome(home, () => {
      assert.equal(cacheRoot({ XDG_CACHE_HOME: join(dir, "xdg") }, "linux"), join(dir, "xdg", "sessiontree"));
      assert.equal(cacheRoot({}, "linux"), join(home, ".cache", "sessiontree"));
      assert.equal(cacheRoot({ XDG_CACHE_HOME: "rel/cache" }, "linux"), join(home, ".cache", "sessiontree"));
    });
  });

  it("macOS: ~/Library/Caches/sessiontree; Windows: %LOCALAPPDATA%", () => {
    withHome(home, () => {
      assert.equal(cacheRoot({}, "darwin"), join(home, "Library", "Caches", "sessiontree"));
      const local = join(dir, "AppData", "Local");
      assert.equal(cacheRoot({ LOCALAPPDATA: local }, "win32"), join(local, "sessiontree", "Cache"));
    });
  });

  it("an empty HOME never makes it relative to the current folder", () => {
    withHome("", () => {
      assert.equal(cacheRoot({}, "linux"), join(tmpdir(), "sessiontree-cache"));
    });
  });

  it("names a cache by a hash of the absolute path: no part of the path reaches the name", () => {
    process.env.SESSIONTREE_CACHE_DIR = join(dir, "named");
    const path = cachePathFor("index", "/some/where/session.jsonl", ".idx");
    assert.match(path, /[/\\]index[/\\][0-9a-f]{40}\.idx$/);
    assert.notEqual(path, cachePathFor("index", "/some/where/other.jsonl", ".idx"));
  });
});

describe("writing a cache file", () => {
  it("is atomic and private: folders 0700, files 0600", () => {
    const path = join(dir, "private", "deep", "cache.json");
    assert.equal(writeCacheFile(path, "one"), true);
    assert.equal(writeCacheFile(path, "two"), true);
    assert.equal(readFileSync(path, "utf8"), "two");
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.equal(statSync(join(dir, "private", "deep")).mode & 0o777, 0o700);
  });

  it("where it cannot be written, is skipped with false, never thrown", () => {
    const blocker = join(dir, "a-file");
    writeFileSync(blocker, "not a folder");
    assert.equal(writeCacheFile(join(blocker, "sub", "cache.json"), "x"), false);
  });
});
