#!/usr/bin/env node
// Which modules a `sessiontree` command loads: the project's own (dist/ or src/) and the packages of
// node_modules. Keeps the CLI fast: `ls` should load neither the server (hono, jose), nor the
// databases (better-sqlite3, pg), nor the agent.
//
//   node scripts/cli-modules.mjs ls                 # the build (run `npm run build` first)
//   node scripts/cli-modules.mjs --json ls --all    # as JSON: { project: [...], packages: [...] }
//   SESSIONTREE_FROM_SOURCE=1 node scripts/cli-modules.mjs ls   # the TypeScript source (tsx)
//   node scripts/cli-modules.mjs --bin PKG/bin/sessiontree.js ls   # another copy of the package
//
// The command runs in a child process with a module hook (this same file) that notes every module
// loaded; CommonJS modules a package requires are read from the require cache at exit.
import { spawnSync } from "node:child_process";
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire, register } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { isMainThread } from "node:worker_threads";

const LOG = process.env.CLI_MODULES_LOG;

/** Module hook (runs in the loader thread): every module loaded, one URL a line. */
export async function load(url, context, nextLoad) {
  if (LOG && url.startsWith("file:")) appendFileSync(LOG, `${url}\n`);
  return nextLoad(url, context);
}

if (LOG && isMainThread) {
  // Preloaded into the command's process: install the hook, and at exit add the CommonJS modules.
  register(import.meta.url);
  process.on("exit", () => {
    const cache = createRequire(import.meta.url).cache;
    // The bundle's chunks run as scripts by its loader (src/cli/script-loader.ts) are no modules.
    const scripts = globalThis[Symbol.for("sessiontree.cli-scripts")] ?? [];
    const files = [...Object.keys(cache), ...scripts].map((file) => pathToFileURL(file).href);
    appendFileSync(LOG, files.length > 0 ? `${files.join("\n")}\n` : "");
  });
} else if (!LOG && process.argv[1] === fileURLToPath(import.meta.url)) {
  report(process.argv.slice(2));
}

function report(argv) {
  let args = argv;
  const json = args[0] === "--json";
  if (json) args = args.slice(1);
  const bin = args[0] === "--bin" ? resolve(args[1]) : undefined;
  if (bin) args = args.slice(2);
  const repo = bin ? dirname(dirname(bin)) : join(dirname(fileURLToPath(import.meta.url)), "..");
  const work = mkdtempSync(join(tmpdir(), "cli-modules-"));
  const log = join(work, "modules.log");
  const child = spawnSync(
    process.execPath,
    ["--import", import.meta.url, bin ?? join(repo, "bin/sessiontree.js"), ...args],
    { env: { ...process.env, CLI_MODULES_LOG: log }, encoding: "utf8" },
  );
  const urls = new Set(readFileSync(log, "utf8").split("\n").filter(Boolean));
  rmSync(work, { recursive: true, force: true });
  const { project, packages } = classify([...urls], repo);
  if (json) {
    process.stdout.write(`${JSON.stringify({ status: child.status, project, packages }, null, 2)}\n`);
    return;
  }
  process.stdout.write(`sessiontree ${args.join(" ")} (exit ${child.status})\n`);
  process.stdout.write(`${project.length} project modules:\n${project.map((p) => `  ${p}`).join("\n")}\n`);
  process.stdout.write(`${packages.length} packages: ${packages.join(", ")}\n`);
}

/** Project files by path from the repository; packages by name, once each. */
function classify(urls, repo) {
  const project = new Set();
  const packages = new Set();
  for (const url of urls) {
    const path = fileURLToPath(url);
    const inModules = path.lastIndexOf(`${sep}node_modules${sep}`);
    if (inModules >= 0) {
      const rest = path.slice(inModules + "/node_modules/".length).split(sep);
      packages.add(rest[0]?.startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0]);
    } else if (path.startsWith(repo + sep)) {
      const file = relative(repo, path);
      if (!file.startsWith(`scripts${sep}`)) project.add(file.split(sep).join("/"));
    }
  }
  return { project: [...project].sort(), packages: [...packages].sort() };
}
