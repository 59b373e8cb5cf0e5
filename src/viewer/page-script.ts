import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type * as Esbuild from "esbuild";

/** What `npm run build` names the bundle it writes beside the compiled page.js. */
export const PREBUILT_NAME = "page-script.bundle.js";

const PREBUILT = fileURLToPath(new URL(`./${PREBUILT_NAME}`, import.meta.url));
let cached: string | undefined;

/**
 * The page's script: src/viewer/browser/main.ts and everything it imports (core's tree and context
 * projection among them) bundled by esbuild into one classic script, inlined by page.ts.
 *
 * A prebuilt bundle beside this module wins; without one it is built here, in memory, once per
 * process (tens of milliseconds). `npm run build` writes that file into dist/viewer/ only, so the
 * published package serves its own prebuilt file and never loads esbuild, while running from
 * source (`npm start`, the tests, through tsx) finds none beside src/viewer/ and always bundles
 * the code it runs: no flag to set, and no stale bundle to serve.
 */
export function pageScript(): string {
  cached ??= existsSync(PREBUILT) ? readFileSync(PREBUILT, "utf8") : bundlePageScript();
  return cached;
}

/** Bundles the page's script now (what the build writes). Needs esbuild, a dev dependency. */
export function bundlePageScript(): string {
  // Loaded only here: an installed package never gets this far, and need not have esbuild.
  const esbuild = createRequire(import.meta.url)("esbuild") as typeof Esbuild;
  // Next to this module: the TypeScript source under tsx, the compiled modules in a dist without
  // its bundle (a bare `tsc` build on a machine that has esbuild).
  const extension = import.meta.url.endsWith(".ts") ? "ts" : "js";
  const result = esbuild.buildSync({
    entryPoints: [fileURLToPath(new URL(`./browser/main.${extension}`, import.meta.url))],
    bundle: true,
    write: false,
    format: "iife",
    platform: "browser",
    target: "es2022",
    minify: true,
    legalComments: "none",
    logLevel: "silent",
  });
  const script = result.outputFiles[0]?.text ?? "";
  return assertInlineSafe(script);
}

/**
 * The bundle goes inside a `<script>` element, where `</script` would end it and `<!--` can change
 * how the rest is parsed. esbuild escapes the first in strings; nothing in the viewer writes either.
 */
function assertInlineSafe(script: string): string {
  const bad = /<\/script|<!--/i.exec(script);
  if (bad) throw new Error(`the viewer's page script holds "${bad[0]}", which cannot be inlined in HTML`);
  return script;
}
