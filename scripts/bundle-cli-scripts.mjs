// The CLI bundle's chunks once more, as scripts that dist/cli-bundle/loader.js (src/cli/script-loader.ts)
// compiles through `vm.Script` with a V8 code cache: Node 20 has no code cache for ES modules, and
// its ES module loader costs about 0.7 ms for each module it resolves, reads and links (a `tree`
// loads nineteen chunks). Each chunk becomes a CommonJS-shaped script, with:
//
// - its static imports of other chunks as `require("./chunk.js")` (the loader's, synchronous);
// - its static imports of packages as `require("pkg")` answered with the package's ES module
//   namespace, which the loader imports (`import()`, so the same module as the ES bundle gets)
//   before the chunk runs: the manifest lists each chunk's chunks and packages for that;
// - its `import("./chunk.js")` and `import("pkg")` as `__importChunk(...)` (the loader's, async);
// - `import.meta.url` as the URL of the ES chunk it came from, so files found beside a chunk
//   (the viewer's page script, the compute worker) are found as before;
// - no comments and no indentation, and only ASCII: every run reads and decodes each script it
//   runs (V8 needs the source beside its code cache), and the ES chunks' doc comments, with their
//   dashes and arrows, made `tree` and `show` read twice the bytes and decode them as UTF-16
//   (measured: the main chunk 5.4 ms as it was, 2.2 ms so). Names stay, so a stack trace still
//   says which function; the ES chunk beside each script is the readable one.
//
//   writeScripts(outdir, chunks, metafile)   (from scripts/bundle-cli.mjs)
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { isBuiltin } from "node:module";
import { basename, join, relative } from "node:path";
import * as esbuild from "esbuild";

/** The folder of dist/cli-bundle/ that holds the scripts and their manifest (the loader reads it). */
export const SCRIPT_DIR = "script";

/**
 * What makes a chunk's code a function of the loader's arguments: each script is written wrapped,
 * so the loader hands V8 the text as it reads it (src/cli/script-loader.ts, the same two strings).
 */
const WRAPPER = [
  "(function (exports, require, module, __importChunk, __importMetaUrl, __importMetaResolve) {",
  "\n})",
];

/**
 * Writes each chunk (`{ path, text }`, the text without the `require` banner) as a script, and the
 * manifest: `{ id, chunks: { "main.js": { chunks: [...], packages: [...] } } }`.
 */
export async function writeScripts(outdir, chunks, metafile, root) {
  const dir = join(outdir, SCRIPT_DIR);
  mkdirSync(dir, { recursive: true });
  const manifest = { id: "", chunks: {} };
  const hash = createHash("sha256");
  for (const { path, text } of chunks) {
    const name = basename(path);
    // The loader appends a chunk's name to its folder's path and URL as it is.
    if (!/^[A-Za-z0-9_-]+\.js$/.test(name))
      throw new Error(`${name}: a chunk name the script loader cannot take`);
    const imports = metafile.outputs[relative(root, path)]?.imports ?? [];
    const script = await toScript(name, text, imports);
    writeFileSync(join(dir, name), script);
    hash.update(name).update("\0").update(script).update("\0");
    manifest.chunks[name] = {
      chunks: imports
        .filter((i) => i.kind === "import-statement" && !i.external)
        .map((i) => basename(i.path)),
      packages: imports
        .filter((i) => i.kind === "import-statement" && i.external && !isBuiltin(i.path))
        .map((i) => i.path),
    };
  }
  manifest.id = hash.digest("hex").slice(0, 16);
  writeFileSync(join(dir, "manifest.json"), `${JSON.stringify(manifest)}\n`);
}

async function toScript(name, text, imports) {
  let source = text;
  const dynamic = imports.filter((i) => i.kind === "dynamic-import");
  const specs = new Set(dynamic.map((edge) => (edge.external ? edge.path : `./${basename(edge.path)}`)));
  for (const spec of specs) {
    const literal = `import(${JSON.stringify(spec)})`;
    // A dynamic import left as it is would fail at run time in a script: fail the build instead.
    if (!source.includes(literal)) throw new Error(`${name}: no ${literal} to rewrite`);
    source = source.split(literal).join(`__importChunk(${JSON.stringify(spec)})`);
  }
  const { code } = await esbuild.transform(source, {
    format: "cjs",
    platform: "node",
    target: "node20",
    sourcefile: name,
    define: { "import.meta.url": "__importMetaUrl", "import.meta.resolve": "__importMetaResolve" },
    minifyWhitespace: true,
    charset: "ascii",
    logLevel: "error",
  });
  if (/\bimport\.meta\b/.test(code)) throw new Error(`${name}: import.meta left in its script`);
  // esbuild escapes every non-ASCII character of the code; what is left (or any other control
  // character than a line end or a tab) is in a kept (legal) comment, where an escape is text as
  // good as the character, or in a string or pattern, where it means the same character.
  const ascii = code.replace(
    /[^\t\n\r -~]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
  return `${WRAPPER[0]}${ascii}${WRAPPER[1]}`;
}
