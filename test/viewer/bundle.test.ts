import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { Script } from "node:vm";
import { buildSync } from "esbuild";
import { renderViewerPage } from "../../src/viewer/page.js";
import { pageScript } from "../../src/viewer/page-script.js";

describe("the viewer's page script", () => {
  it("is bundled from source once per process, as one classic script the page inlines", () => {
    const script = pageScript();
    const t0 = performance.now();
    assert.equal(pageScript(), script, "the same text from the cache");
    assert.ok(performance.now() - t0 < 5, "a cached call does not build again");
    assert.doesNotThrow(() => new Script(script), "it compiles as a classic script, not a module");
    assert.doesNotMatch(script, /<\/script|<!--/i);
    assert.ok(renderViewerPage().includes(`<script>${script}</script>`));
  });

  it("holds core's tree and projection, no port of them", () => {
    const script = pageScript();
    // Words of core's own messages survive minification: they are strings in core/context.ts and tree.ts.
    assert.match(script, /which is not on the path before it/);
    assert.match(script, /appears twice with different content/);
  });

  it("can take all of core into a browser (no node: module anywhere in it, uuid included)", () => {
    const core = fileURLToPath(new URL("../../src/core/index.ts", import.meta.url));
    const result = buildSync({
      stdin: { contents: `export * from ${JSON.stringify(core)};`, resolveDir: ".", loader: "ts" },
      bundle: true,
      write: false,
      format: "esm",
      platform: "browser",
      logLevel: "silent",
      metafile: true,
    });
    const inputs = Object.keys(result.metafile.inputs);
    assert.ok(
      inputs.some((path) => path.includes("node_modules/uuid/")),
      inputs.join(", "),
    );
    assert.ok(!inputs.some((path) => path.startsWith("node:")), inputs.join(", "));
  });
});
