import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import { lazyBuiltin } from "../../src/cli/script-loader.js";

const require = createRequire(import.meta.url);

// The script loader hands a chunk's `require("node:crypto")` (and other costly built-ins) a proxy
// that loads the module on first use: it must read as the module itself in every way a chunk does.
describe("lazyBuiltin (the script loader's built-ins loaded on first use)", () => {
  it("answers as the module: its exports, `in`, and esbuild's interop copying every property", () => {
    const real = require("node:zlib") as Record<string, unknown>;
    const lazy = lazyBuiltin("node:zlib") as Record<string, unknown>;
    assert.equal(lazy.gzipSync, real.gzipSync);
    assert.equal("constants" in lazy, true);
    assert.equal("noSuchExport" in lazy, false);
    // esbuild's __toESM / __copyProps: names, then descriptors, then reads through getters.
    const copy: Record<string, unknown> = {};
    for (const key of Object.getOwnPropertyNames(lazy)) {
      const descriptor = Object.getOwnPropertyDescriptor(lazy, key);
      assert.ok(descriptor, key);
      Object.defineProperty(copy, key, { get: () => lazy[key], enumerable: descriptor.enumerable });
    }
    assert.deepEqual(Object.keys(copy).sort(), Object.keys(real).sort());
    assert.equal(copy.deflateSync, real.deflateSync);
  });

  it("loads nothing until an export is used", () => {
    const loader = pathToFileURL(require.resolve("../../src/cli/script-loader.ts")).href;
    const script = [
      `const { lazyBuiltin } = await import(${JSON.stringify(loader)});`,
      "const loaded = () => process.moduleLoadList.includes('NativeModule dns');",
      "const before = loaded();",
      "const lazy = lazyBuiltin('node:dns');",
      "const untouched = loaded();",
      "const lookup = typeof lazy.lookup;",
      "process.stdout.write(JSON.stringify({ before, untouched, after: loaded(), lookup }));",
    ].join("\n");
    const child = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "--eval", script], {
      encoding: "utf8",
    });
    assert.equal(child.status, 0, child.stderr);
    assert.deepEqual(JSON.parse(child.stdout), {
      before: false,
      untouched: false,
      after: true,
      lookup: "function",
    });
  });
});
