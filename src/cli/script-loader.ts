import { createHash } from "node:crypto";
import { closeSync, fstatSync, openSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import vm from "node:vm";
import { cacheRoot, writeCacheFile } from "../file/cache-dir.js";

/**
 * Runs the CLI bundle's chunks as scripts with a V8 code cache (scripts/bundle-cli-scripts.mjs
 * writes them): Node 20 keeps no compiled code for ES modules between runs, and resolves, reads
 * and links each module one by one. Bundled on its own into dist/cli-bundle/loader.cjs, beside the
 * ES chunks, so `import()` and `require` here resolve packages exactly as the chunks do. It is
 * CommonJS, as bin/sessiontree.js is: a command whose chunks import no package then never starts
 * node's ES module loader (about 15 ms of CPU on every run), and the node built-ins here are
 * required, not imported (an import of `node:fs` builds its ES facade, which loads fs's streams).
 *
 * The code cache lives in sessiontree's private cache directory, one folder per build and node
 * version, one file per chunk and command (what a run compiles is what its command ran), named by
 * the script's size and mtime. It is never trusted blindly: V8 rejects data made by another V8,
 * other flags or another source length, and a rejected or missing cache just compiles (and is
 * written again when the command ends). SESSIONTREE_CODE_CACHE=off neither reads nor writes one.
 */

interface Manifest {
  id: string;
  chunks: Record<string, { chunks: string[]; packages: string[] }>;
}

/** The manifest of the scripts beside this loader, or null when there is none (an older build). */
function readManifest(dir: string): Manifest | null {
  try {
    const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as Manifest;
    return manifest.chunks?.["main.js"] ? manifest : null;
  } catch {
    return null;
  }
}

type Exports = Record<string, unknown>;
type ScriptFunction = (
  exports: Exports,
  require: (spec: string) => unknown,
  module: { exports: Exports },
  importChunk: (spec: string) => Promise<unknown>,
  importMetaUrl: string,
  importMetaResolve: (spec: string) => string,
) => void;

/**
 * What makes a chunk's code a function of the loader's arguments. The build writes each script
 * already wrapped (scripts/bundle-cli-scripts.mjs, the same two strings), so the source is handed
 * to V8 as read: wrapping it here made a copy of every script on every run.
 */
const WRAPPER = [
  "(function (exports, require, module, __importChunk, __importMetaUrl, __importMetaResolve) {",
  "\n})",
] as const;

/** `source` as a function expression: as it is when the build wrapped it. */
function wrapped(source: string): string {
  return source.startsWith(WRAPPER[0]) && source.endsWith(WRAPPER[1])
    ? source
    : WRAPPER[0] + source + WRAPPER[1];
}
const nodeRequire = createRequire(import.meta.url);

/**
 * The ES chunks whose scripts ran, for scripts/cli-modules.mjs (which sees ES modules through a
 * module hook, and these are not loaded as modules).
 */
const ran: string[] = [];
(globalThis as Record<symbol, unknown>)[Symbol.for("sessiontree.cli-scripts")] = ran;

/** A chunk run, and what its code cache needs at exit. */
interface Loaded {
  module: { exports: Exports };
  script: vm.Script;
  cachePath: string | null;
  cacheUsed: boolean;
}

class ScriptLoader {
  private readonly loaded = new Map<string, Loaded>();
  /** Packages' module namespaces, as a chunk's `require` of them answers. */
  private readonly packages = new Map<string, Exports>();
  /**
   * The folder of the ES chunks (the scripts' parent), as a path and as a URL, each ending in a
   * separator: a chunk's name (esbuild's `[name]-[hash].js`, no separator, nothing a URL escapes)
   * is appended, rather than joined and converted for each of the twenty chunks a command runs.
   */
  private readonly chunkDir: string;
  private readonly chunkUrl: string;

  constructor(
    private readonly dir: string,
    private readonly manifest: Manifest,
    private readonly cacheDir: string | null,
  ) {
    const chunks = dirname(dir);
    this.chunkDir = chunks.endsWith(sep) ? chunks : `${chunks}${sep}`;
    const url = pathToFileURL(chunks).href;
    this.chunkUrl = url.endsWith("/") ? url : `${url}/`;
  }

  /** A chunk and what it imports, once the packages they import are loaded. */
  async importChunk(spec: string): Promise<Exports> {
    if (!spec.startsWith("./")) return (await import(spec)) as Exports;
    const name = spec.slice(2);
    await this.loadPackages(name);
    return this.requireChunk(name);
  }

  /** Writes the code cache of every chunk that ran without one (at exit: it then holds what ran). */
  saveCaches(): void {
    let wrote = false;
    for (const [name, { script, cachePath, cacheUsed }] of this.loaded)
      if (cachePath !== null && !cacheUsed && writeCacheFile(cachePath, sealed(script.createCachedData()))) {
        wrote = true;
        removeOlderCaches(cachePath, name);
      }
    if (wrote && this.cacheDir !== null) removeOtherBuilds(dirname(this.cacheDir));
  }

  private async loadPackages(name: string): Promise<void> {
    const wanted = new Set<string>();
    const seen = new Set<string>();
    const visit = (chunk: string): void => {
      if (seen.has(chunk) || this.loaded.has(chunk)) return;
      seen.add(chunk);
      const entry = this.manifest.chunks[chunk];
      for (const pkg of entry?.packages ?? []) if (!this.packages.has(pkg)) wanted.add(pkg);
      for (const next of entry?.chunks ?? []) visit(next);
    };
    visit(name);
    await Promise.all(
      [...wanted].map(async (pkg) => {
        const namespace = (await import(pkg)) as Exports;
        // Marked as an ES module, so the script's interop takes `default` from it, as `import` does.
        this.packages.set(pkg, Object.defineProperty({ ...namespace }, "__esModule", { value: true }));
      }),
    );
  }

  private requireChunk(name: string): Exports {
    const done = this.loaded.get(name);
    if (done) return done.module.exports;
    const path = `${this.dir}${sep}${name}`;
    const { source, cachePath } = this.readScript(path, name);
    const cachedData = cachePath === null ? undefined : readCache(cachePath);
    const script = new vm.Script(wrapped(source), {
      filename: path,
      cachedData,
      importModuleDynamically: vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER,
    });
    const module = { exports: {} as Exports };
    const cacheUsed = cachedData !== undefined && !script.cachedDataRejected;
    this.loaded.set(name, { module, script, cachePath, cacheUsed });
    const url = `${this.chunkUrl}${name}`;
    ran.push(`${this.chunkDir}${name}`);
    const run = script.runInThisContext() as ScriptFunction;
    run(
      module.exports,
      (spec) => this.require(spec),
      module,
      (spec) => this.importChunk(spec),
      url,
      (spec) => import.meta.resolve(spec),
    );
    return module.exports;
  }

  private require(spec: string): unknown {
    if (spec.startsWith("./")) return this.requireChunk(spec.slice(2));
    return this.packages.get(spec) ?? (LAZY_BUILTINS.has(spec) ? lazyBuiltin(spec) : nodeRequire(spec));
  }

  /** The script's text, and its cache file: named by the script's size and mtime. */
  private readScript(path: string, name: string): { source: string; cachePath: string | null } {
    const fd = openSync(path, "r");
    try {
      const { size, mtimeMs } = fstatSync(fd);
      const source = readFileSync(fd, "utf8");
      const cachePath =
        this.cacheDir === null ? null : join(this.cacheDir, `${name}.${size}-${Math.trunc(mtimeMs)}.cache`);
      return { source, cachePath };
    } finally {
      closeSync(fd);
    }
  }
}

/**
 * Built-ins that take milliseconds to load and that a chunk imports for one path of its work (the
 * burst lock's watcher thread, a hash, a child process, a socket): each is loaded when one of its
 * exports is first used, so `tree` does not load worker_threads for a lock it never lends. Not
 * fs, path, url and the like: node has loaded them before any script runs.
 */
const LAZY_BUILTINS: ReadonlySet<string> = new Set(
  [
    "child_process",
    "crypto",
    "dns",
    "http",
    "https",
    "net",
    "readline",
    "stream",
    "tls",
    "worker_threads",
    "zlib",
  ].flatMap((name) => [name, `node:${name}`]),
);

/**
 * A built-in's exports, loaded on first use. A chunk reads a built-in's exports as properties at
 * the moment it uses them (`(0, import_node_crypto.createHash)(...)`, the scripts' form of an
 * import), which is the `get` here; anything that lists or describes them (esbuild's interop for a
 * default import) gets them copied onto the target first, so the proxy's invariants hold.
 */
export function lazyBuiltin(spec: string): object {
  let loaded: Record<string | symbol, unknown> | undefined;
  const real = (): Record<string | symbol, unknown> => {
    loaded ??= nodeRequire(spec) as Record<string | symbol, unknown>;
    return loaded;
  };
  const target: Record<string | symbol, unknown> = {};
  let copied = false;
  const filled = (): Record<string | symbol, unknown> => {
    if (!copied) Object.defineProperties(target, Object.getOwnPropertyDescriptors(real()));
    copied = true;
    return target;
  };
  return new Proxy(target, {
    get: (_, key) => real()[key],
    has: (_, key) => key in real(),
    ownKeys: () => Reflect.ownKeys(filled()),
    getOwnPropertyDescriptor: (_, key) => Reflect.getOwnPropertyDescriptor(filled(), key),
  });
}

/**
 * A cache file is a header (magic, SHA-256 of the data) and V8's data. V8 checks only its own
 * header (version, flags, source length) and trusts the rest: a damaged body makes it abort the
 * process, on every run until the file is gone. So the data is handed to V8 only when its hash
 * holds; anything else is no cache (compiled, and written again at exit).
 */
const MAGIC = Buffer.from("stcc\u0000\u0001\u0000\u0000", "latin1");
const HEADER_BYTES = MAGIC.length + 32;

function sealed(data: Buffer): Buffer {
  return Buffer.concat([MAGIC, createHash("sha256").update(data).digest(), data]);
}

function readCache(path: string): Buffer | undefined {
  let file: Buffer;
  try {
    file = readFileSync(path);
  } catch {
    return undefined;
  }
  if (file.length <= HEADER_BYTES || !file.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
  const data = file.subarray(HEADER_BYTES);
  const hash = createHash("sha256").update(data).digest();
  return hash.equals(file.subarray(MAGIC.length, HEADER_BYTES)) ? data : undefined;
}

/** Code caches of other builds and node versions (only the latest is ever read again). */
function removeOtherBuilds(buildDir: string): void {
  const parent = dirname(buildDir);
  try {
    for (const name of readdirSync(parent))
      if (name !== basename(buildDir)) rmSync(join(parent, name), { recursive: true, force: true });
  } catch {
    // A cache that cannot be tidied costs disk space, never a failure.
  }
}

/** The same chunk's caches of an earlier mtime of its script (named `<chunk>.<size>-<mtime>.cache`). */
function removeOlderCaches(current: string, chunk: string): void {
  try {
    for (const name of readdirSync(dirname(current)))
      if (name.startsWith(`${chunk}.`) && name !== basename(current))
        rmSync(join(dirname(current), name), { force: true });
  } catch {
    // A cache that cannot be tidied costs disk space, never a failure.
  }
}

/**
 * The folder of a command's code cache: named by the command when the first word is one (it has a
 * chunk of its own, `<command>-run-*.js`), else "_" (a flag's value, help, a mistyped command).
 */
function cacheDirFor(manifest: Manifest, argv: readonly string[]): string | null {
  if (process.env.SESSIONTREE_CODE_CACHE === "off") return null;
  const first = argv.find((arg) => !arg.startsWith("-"));
  const known =
    first !== undefined &&
    /^[a-z][a-z-]{0,30}$/.test(first) &&
    Object.keys(manifest.chunks).some((chunk) => chunk.startsWith(`${first}-run-`));
  const command = known ? first : "_";
  const build = `${manifest.id}-${process.version}-${process.arch}`;
  return join(cacheRoot(), "cli-code", build, command);
}

/**
 * The CLI's `main`, run from the scripts beside this loader; null when there are none (the caller
 * then imports the ES bundle). Nothing has run when it returns null.
 */
export async function loadMain(argv: readonly string[]): Promise<Exports | null> {
  const dir = join(fileURLToPath(new URL(".", import.meta.url)), "script");
  const manifest = readManifest(dir);
  if (manifest === null) return null;
  const loader = new ScriptLoader(dir, manifest, cacheDirFor(manifest, argv));
  process.once("exit", () => loader.saveCaches());
  return loader.importChunk("./main.js");
}
