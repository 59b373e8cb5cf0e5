#!/usr/bin/env node
// The layer check: every import in src/**/*.ts must point down the table below (or stay inside its
// own layer). Imports are read with TypeScript's parser (already a dev dependency), so multi-line,
// type-only, re-exports and dynamic import() all count and text inside strings never does.
//   node scripts/check-layers.mjs            check src/, print each violation, exit 1 if any
//   node scripts/check-layers.mjs --table    print the table as markdown (docs/architecture.md quotes it)
//   node scripts/check-layers.mjs --root DIR check another source tree (the test's fixtures)
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";
import ts from "typescript";

/**
 * The layers, lowest first: the one place they are written down. `may` lists the lower layers a
 * layer may import; its own layer is always allowed. `node: false` forbids node: built-ins (core does
 * no I/O). `only` narrows a dependency to some files of that layer. Packages from node_modules are
 * not layered. Rows of equal rank are siblings: neither may import the other.
 */
export const LAYERS = [
  { layer: "core", rank: 0, may: [], node: false, why: "pure: entries, tree, context, ids, errors" },
  { layer: "format", rank: 1, may: ["core"], why: "codecs: pi JSONL, Claude Code import, exports" },
  { layer: "file", rank: 2, may: ["core", "format"], why: "the session file: read, write, lock, repair" },
  { layer: "store", rank: 3, may: ["core", "format", "file"], why: "SessionStore and its backends" },
  { layer: "session", rank: 3, may: ["core", "format", "file"], why: "SessionManager over files" },
  {
    layer: "agent",
    rank: 4,
    may: ["core", "format", "file", "store", "session"],
    why: "AgentSession over a store or a SessionManager",
  },
  {
    layer: "server",
    rank: 4,
    may: ["core", "format", "file", "store", "session"],
    why: "HTTP service over a SessionStore",
  },
  {
    layer: "viewer",
    rank: 4,
    may: ["core", "format", "file", "store", "session"],
    why: "web tree viewer and HTML export",
  },
  {
    layer: "adapters",
    rank: 4,
    may: ["core", "format", "file", "store", "session"],
    why: "the history layer under agent frameworks (OpenAI Agents, AI SDK, LangGraph)",
  },
  {
    layer: "client",
    rank: 5,
    may: ["core", "server"],
    only: { server: ["schemas.ts"] },
    why: "typed HTTP client: the server's wire schemas, none of its runtime",
  },
  {
    layer: "sync",
    rank: 6,
    may: ["core", "format", "file", "session", "client"],
    why: "sessiontree sync: local session files ⇄ the service, through the typed client",
  },
  {
    layer: "cli",
    rank: 7,
    may: [
      "core",
      "format",
      "file",
      "store",
      "session",
      "agent",
      "server",
      "viewer",
      "adapters",
      "client",
      "sync",
    ],
    why: "the sessiontree command",
  },
  {
    layer: "index",
    rank: 6,
    files: ["index.ts"],
    may: ["core", "format", "file", "store", "session"],
    why: "the package root (src/index.ts); heavy parts are subpath exports",
  },
];

const byName = new Map(LAYERS.map((row) => [row.layer, row]));

/** The layer of a path relative to the source root ("core/tree.ts" → core), or undefined. */
function layerOf(path) {
  const parts = path.split(sep);
  if (parts.length === 1) return LAYERS.find((row) => row.files?.includes(parts[0]))?.layer;
  return byName.has(parts[0]) && !byName.get(parts[0]).files ? parts[0] : undefined;
}

function sourceFiles(dir) {
  const found = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...sourceFiles(path));
    else if (name.endsWith(".ts") && !name.endsWith(".d.ts")) found.push(path);
  }
  return found;
}

/** Every module specifier a file imports or re-exports, statically or with import(). */
function specifiers(path) {
  const source = ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.Latest, true);
  const found = [];
  const visit = (node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      if (ts.isStringLiteral(node.moduleSpecifier)) found.push(node.moduleSpecifier.text);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      found.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Why `from` (a layer) may not import `target` (relative to the root), or undefined when it may. */
function refusal(from, target) {
  const to = layerOf(target);
  if (to === undefined) return `layer ${from} may not import outside the layer table`;
  if (to === from) return undefined;
  const row = byName.get(from);
  if (!row.may.includes(to)) return `layer ${from} may not import layer ${to}`;
  const only = row.only?.[to];
  if (only && !only.includes(target.split(sep).slice(1).join("/"))) {
    return `layer ${from} may import only ${only.map((f) => `${to}/${f}`).join(", ")} of layer ${to}`;
  }
  return undefined;
}

/** The table itself must point down: a layer may list only layers of a lower rank. */
function tableProblems() {
  return LAYERS.flatMap((row) =>
    row.may
      .filter((layer) => !(byName.get(layer)?.rank < row.rank))
      .map((layer) => `scripts/check-layers.mjs: layer ${row.layer} lists ${layer}, which is not below it`),
  );
}

/** The violations under `root` (default src/), as printable lines. */
export function checkLayers(root = "src") {
  const problems = tableProblems();
  for (const file of sourceFiles(root)) {
    const path = relative(root, file);
    const shown = relative(".", file).split(sep).join("/");
    const from = layerOf(path);
    if (from === undefined) {
      problems.push(`${shown}: is in no layer (add its folder to LAYERS in scripts/check-layers.mjs)`);
      continue;
    }
    for (const spec of specifiers(file)) {
      let why;
      if (spec.startsWith("node:")) {
        if (byName.get(from).node === false) why = `layer ${from} may not import node: built-ins`;
      } else if (spec.startsWith(".")) {
        const target = relative(root, resolve(dirname(file), spec)).replace(/\.js$/, ".ts");
        why = target.startsWith("..")
          ? `layer ${from} may not import outside the source tree`
          : refusal(from, target);
      }
      if (why) problems.push(`${shown}: imports ${spec} (${why})`);
    }
  }
  return problems;
}

/** The table as markdown, for docs/architecture.md. */
export function layerTable() {
  const rows = [...LAYERS].reverse().map((row) => {
    let may = row.may.length === 0 ? "nothing" : row.may.join(", ");
    for (const [layer, files] of Object.entries(row.only ?? {})) {
      may = may.replace(layer, `${layer} (${files.join(", ")} only)`);
    }
    const name = row.files ? row.files.map((f) => `src/${f}`).join(", ") : `${row.layer}/`;
    const extra = row.node === false ? "; no node: built-ins" : "";
    return `| ${row.rank} | ${name} | ${may}${extra} | ${row.why} |`;
  });
  return ["| rank | layer | may import | what |", "|---|---|---|---|", ...rows].join("\n");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const args = process.argv.slice(2);
  if (args.includes("--table")) {
    console.log(layerTable());
    process.exit(0);
  }
  const rootAt = args.indexOf("--root");
  const problems = checkLayers(rootAt === -1 ? "src" : args[rootAt + 1]);
  for (const line of problems) console.log(line);
  if (problems.length > 0) {
    console.error(`${problems.length} import(s) against the layers (scripts/check-layers.mjs).`);
    process.exit(1);
  }
  console.log("layers: every import points down.");
}
