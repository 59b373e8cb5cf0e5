#!/usr/bin/env node
// `npm run build`'s CLI step: bundles the compiled command (dist/cli/main.js) into dist/cli-bundle/,
// which bin/sessiontree.js prefers. Every command starts in the time node itself takes plus a few
// milliseconds: resolving, reading and linking forty small ES modules one by one cost more than
// running `ls` (measured: `ls` on an empty root 170 ms from dist/cli/, 128 ms from the bundle).
//
// Code splitting keeps the commands lazy: the entry chunk holds the command line (commander and each
// command's options); each command's work is a chunk of its own, loaded by its action, so `ls` still
// loads no server, database or viewer code. Packages stay external (resolved from node_modules at
// run time) except the small pure ones every command needs, and uuid: twenty ES modules that
// `tree`, `show` and every other command reading a session load (core/session-id.ts), resolved and
// linked one by one (measured: 18 ms of a 190 ms `tree`); bundled, its v7 is a few lines of a chunk.
//
// commander requires node:child_process when it loads, only to run executable subcommands, which
// this CLI has none of: the bundle requires it on first use instead, sparing every command loading
// child_process, net, dgram and the streams behind them.
//
//   node scripts/bundle-cli.mjs [DIST]     (after tsc has written DIST, by default dist/)
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";
import { writeScripts } from "./bundle-cli-scripts.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = resolve(process.argv[2] ?? join(root, "dist"));
const outdir = join(dist, "cli-bundle");
const BUNDLED_PACKAGES = new Set(["commander", "picocolors", "uuid"]);

const { dependencies } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const external = Object.keys(dependencies).flatMap((name) =>
  BUNDLED_PACKAGES.has(name) ? [] : [name, `${name}/*`],
);

const REQUIRE =
  'import { createRequire as __bundleRequire } from "node:module"; const require = __bundleRequire(import.meta.url);';

/**
 * The modules a command loads on demand (targets of `import()`), minus those main loads anyway and
 * those the compute worker (a thread with no main) may load: paths relative to the root.
 */
function loadedAfterMain(inputs, mainPath, workerPath) {
  const reach = (from, kinds) => {
    const seen = new Set([from]);
    for (const path of seen)
      for (const edge of inputs[path]?.imports ?? [])
        if (!edge.external && kinds.includes(edge.kind)) seen.add(edge.path);
    return seen;
  };
  const statically = ["import-statement", "require-call"];
  const always = reach(mainPath, statically);
  const worker = reach(workerPath, [...statically, "dynamic-import"]);
  const targets = [...reach(mainPath, [...statically, "dynamic-import"])].flatMap((path) =>
    (inputs[path]?.imports ?? [])
      .filter((edge) => !edge.external && edge.kind === "dynamic-import")
      .map((edge) => edge.path),
  );
  return new Set(targets.filter((path) => !always.has(path) && !worker.has(path)));
}

/**
 * Makes each module loaded on demand import main (already loaded when it runs: no effect at run
 * time). esbuild puts code in one chunk per set of entry points that reach it, and does not know
 * that main always runs first: without this, what main loads is cut into a dozen chunks by which
 * commands share which part, and every command pays for resolving, reading and linking each one.
 * With it, what main loads is one chunk.
 */
function afterMain(onDemand) {
  return {
    name: "after-main",
    setup(build) {
      build.onLoad({ filter: /\.js$/ }, ({ path }) => {
        if (!onDemand.has(relative(root, path))) return undefined;
        const source = readFileSync(path, "utf8");
        return {
          contents: `${source}\nimport ${JSON.stringify(main)};\n`,
          loader: "js",
          resolveDir: dirname(path),
        };
      });
    },
  };
}

/** Rewrites commander's `require('node:child_process')` to a require on first use (see above). */
const lazyChildProcessInCommander = {
  name: "lazy-child-process-in-commander",
  setup(build) {
    build.onLoad({ filter: /[\\/]commander[\\/]lib[\\/]command\.js$/ }, ({ path }) => {
      const eager = "const childProcess = require('node:child_process');";
      const source = readFileSync(path, "utf8");
      // A commander that no longer reads it this way fails the build: never a silent slowdown.
      if (!source.includes(eager)) throw new Error(`${path}: no "${eager}" to make lazy`);
      const lazy =
        "const childProcess = new Proxy({}, { get: (_, key) => require('node:child_process')[key] });";
      return { contents: source.replace(eager, lazy), loader: "js" };
    });
  },
};

const main = join(dist, "cli/main.js");
const options = {
  // The service's compute worker is started by its file name, beside the chunk that starts it.
  entryPoints: { main, "compute-worker": join(dist, "server/work/compute-worker.js") },
  absWorkingDir: root,
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external: [...external, "esbuild", "tsx", "tsx/*"],
  metafile: true,
  write: false,
  logLevel: "warning",
};

// First pass: the module graph, to find what every command loads and what each loads on demand.
const graph = (await esbuild.build({ ...options, plugins: [lazyChildProcessInCommander] })).metafile;
const onDemand = loadedAfterMain(
  graph.inputs,
  relative(root, main),
  relative(root, options.entryPoints["compute-worker"]),
);
const result = await esbuild.build({
  ...options,
  plugins: [lazyChildProcessInCommander, afterMain(onDemand)],
});

rmSync(outdir, { recursive: true, force: true });
mkdirSync(outdir, { recursive: true });
for (const file of result.outputFiles) {
  // commander is CommonJS: the chunks that require (node built-ins) get a `require` of their own.
  writeFileSync(file.path, /\brequire\b/.test(file.text) ? `${REQUIRE}\n${file.text}` : file.text);
}

// The same chunks as scripts with a code cache, which bin/sessiontree.js runs through the loader
// (src/cli/script-loader.ts, bundled on its own: it runs before any chunk). The loader is CommonJS
// (loader.cjs), required by bin/sessiontree.js, itself CommonJS (bin/package.json): a command
// whose chunks import no package then never starts node's ES module loader. Its `import.meta`
// becomes its file's URL, and `import.meta.resolve` require's resolution, which only a chunk of
// the source's compute worker would ask for (the bundle's starts its worker by file name).
const chunks = result.outputFiles.filter((file) => file.path.endsWith(".js"));
await writeScripts(outdir, chunks, result.metafile, root);
await esbuild.build({
  entryPoints: { loader: join(dist, "cli/script-loader.js") },
  absWorkingDir: root,
  outdir,
  outExtension: { ".js": ".cjs" },
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  banner: {
    js: [
      'const __loaderUrl = require("node:url").pathToFileURL(__filename).href;',
      'const __loaderResolve = (spec) => require("node:url").pathToFileURL(require.resolve(spec)).href;',
    ].join("\n"),
  },
  define: { "import.meta.url": "__loaderUrl", "import.meta.resolve": "__loaderResolve" },
  logLevel: "warning",
});

// The viewer's page script is found beside the module that serves it (viewer/page-script.ts),
// which in the bundle is a chunk of this folder.
copyFileSync(join(dist, "viewer/page-script.bundle.js"), join(outdir, "page-script.bundle.js"));

const outputs = Object.entries(result.metafile.outputs);
const bytes = outputs.reduce((sum, [, output]) => sum + output.bytes, 0);
process.stdout.write(`${outdir}: ${outputs.length} chunks, ${(bytes / 1024).toFixed(0)} KiB\n`);
