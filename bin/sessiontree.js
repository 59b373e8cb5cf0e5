#!/usr/bin/env node
// The `sessiontree` command. Runs the build when there is one (the bundle `npm run build` writes to
// dist/cli-bundle/, through its loader when it has one, else tsc's modules in dist/cli/), else the
// TypeScript source through tsx, so it works both installed and in a checkout.
// SESSIONTREE_FROM_SOURCE=1 forces the source (tests, development with a stale dist/).
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

// `sessiontree tree | head`: a closed pipe ends the output, it is not an error.
process.stdout.on("error", (error) => {
  if (error.code === "EPIPE") process.exit(0);
  throw error;
});

const argv = process.argv.slice(2);
const fromSource = process.env.SESSIONTREE_FROM_SOURCE === "1";
const built = [
  new URL("../dist/cli-bundle/main.js", import.meta.url),
  new URL("../dist/cli/main.js", import.meta.url),
];
let entry = built.find((url) => existsSync(fileURLToPath(url)));
// The bundle's chunks as scripts with a V8 code cache (src/cli/script-loader.ts): null when the
// build has none, and then nothing has run yet.
const loader = new URL("../dist/cli-bundle/loader.js", import.meta.url);
let cli = null;
if (!fromSource && entry === built[0] && existsSync(fileURLToPath(loader))) {
  cli = await (await import(loader.href)).loadMain(argv);
}
if (fromSource || !entry) {
  const { register } = await import("tsx/esm/api");
  register();
  entry = new URL("../src/cli/main.ts", import.meta.url);
}
const { main } = cli ?? (await import(entry.href));
const code = await main(argv);
// Some commands report failure through process.exitCode themselves: never turn that into success.
if (code !== 0 || !process.exitCode) process.exitCode = code;
