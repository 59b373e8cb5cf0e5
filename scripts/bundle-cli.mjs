#!/usr/bin/env node
// `npm run build`'s CLI step: bundles the compiled command (dist/cli/main.js) into dist/cli-bundle/,
// which bin/sessiontree.js prefers. Every command starts in the time node itself takes plus a few
// milliseconds: resolving, reading and linking forty small ES modules one by one cost more than
// running `ls` (measured: `ls` on an empty root 170 ms from dist/cli/, 128 ms from the bundle).
//
// Code splitting keeps the commands lazy: the entry chunk holds the command line (commander and each
// command's options); each command's work is a chunk of its own, loaded by its action, so `ls` still
// loads no server, database or viewer code. Packages stay external (resolved from node_modules at
// run time) except the small pure ones every command needs.
//
//   node scripts/bundle-cli.mjs [DIST]     (after tsc has written DIST, by default dist/)
import { copyFileSync, readFileSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = resolve(process.argv[2] ?? join(root, "dist"));
const outdir = join(dist, "cli-bundle");
const BUNDLED_PACKAGES = new Set(["commander", "picocolors"]);

const { dependencies } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const external = Object.keys(dependencies).flatMap((name) =>
  BUNDLED_PACKAGES.has(name) ? [] : [name, `${name}/*`],
);

rmSync(outdir, { recursive: true, force: true });
const result = await esbuild.build({
  entryPoints: { main: join(dist, "cli/main.js") },
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external: [...external, "esbuild", "tsx", "tsx/*"],
  // commander is CommonJS: give the bundle a `require` for the node built-ins it requires.
  banner: {
    js: 'import { createRequire as __bundleRequire } from "node:module"; const require = __bundleRequire(import.meta.url);',
  },
  metafile: true,
  logLevel: "warning",
});

// The viewer's page script is found beside the module that serves it (viewer/page-script.ts),
// which in the bundle is a chunk of this folder.
copyFileSync(join(dist, "viewer/page-script.bundle.js"), join(outdir, "page-script.bundle.js"));

const outputs = Object.entries(result.metafile.outputs);
const bytes = outputs.reduce((sum, [, output]) => sum + output.bytes, 0);
process.stdout.write(`${outdir}: ${outputs.length} chunks, ${(bytes / 1024).toFixed(0)} KiB\n`);
