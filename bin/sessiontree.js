#!/usr/bin/env node
// The `sessiontree` command. Runs the build when there is one (the bundle `npm run build` writes to
// dist/cli-bundle/, through its loader when it has one, else tsc's modules in dist/cli/), else the
// TypeScript source through tsx, so it works both installed and in a checkout.
// SESSIONTREE_FROM_SOURCE=1 forces the source (tests, development with a stale dist/).
//
// bin/package.json makes this file CommonJS: node then runs it, and the bundle's loader and chunks,
// without starting its ES module loader (about 15 ms of CPU on every command). The file also runs
// as an ES module (a copy of it without bin/package.json): it uses neither `import` declarations
// nor `import.meta` nor a top-level await, and takes `require` from node:module when it has none.
"use strict";

// `sessiontree tree | head`: a closed pipe ends the output, it is not an error.
process.stdout.on("error", (error) => {
  if (error.code === "EPIPE") process.exit(0);
  throw error;
});

/** `require`, and this file's folder (the real one: npm links it from node_modules/.bin). */
async function here() {
  if (typeof require === "function" && typeof __dirname === "string") return { require, dir: __dirname };
  const { createRequire } = await import("node:module");
  const { realpathSync } = await import("node:fs");
  const { dirname } = await import("node:path");
  const self = realpathSync(process.argv[1]);
  return { require: createRequire(self), dir: dirname(self) };
}

async function launch() {
  const { require: load, dir } = await here();
  const { existsSync } = load("node:fs");
  const { join } = load("node:path");
  const { pathToFileURL } = load("node:url");
  const argv = process.argv.slice(2);
  const fromSource = process.env.SESSIONTREE_FROM_SOURCE === "1";
  const built = [join(dir, "../dist/cli-bundle/main.js"), join(dir, "../dist/cli/main.js")];
  let entry = built.find((path) => existsSync(path));
  // The bundle's chunks as scripts with a V8 code cache (src/cli/script-loader.ts): null when the
  // build has none, and then nothing has run yet.
  const loader = join(dir, "../dist/cli-bundle/loader.cjs");
  let cli = null;
  if (!fromSource && entry === built[0] && existsSync(loader)) cli = await load(loader).loadMain(argv);
  if (fromSource || !entry) {
    const { register } = await import("tsx/esm/api");
    register();
    entry = join(dir, "../src/cli/main.ts");
  }
  const { main } = cli ?? (await import(pathToFileURL(entry).href));
  const code = await main(argv);
  // Some commands report failure through process.exitCode themselves: never turn that into success.
  if (code !== 0 || !process.exitCode) process.exitCode = code;
}

// A failure outside any command (a broken build) is an unhandled rejection: printed, exit code 1.
launch();
