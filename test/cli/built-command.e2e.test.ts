import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { after, before, describe, it } from "node:test";
import { cliEnv, copyFixture, REPO, tempWorkspace } from "./helpers.js";

/** Runs a node script of the repository and fails the test with its output when it fails. */
function node(args: string[], env: Record<string, string> = {}): string {
  const child = spawnSync(process.execPath, args, {
    cwd: REPO,
    env: { ...process.env, ...env },
    encoding: "utf8",
  });
  assert.equal(child.status, 0, `${args.join(" ")}\n${child.stdout}\n${child.stderr}`);
  return child.stdout;
}

// What `npm run build` gives a user: tsc's modules, the viewer's page script and the CLI bundle
// that bin/sessiontree.js prefers. Built into a copy of the package (bin, package.json, dist and a
// link to node_modules), so the test leaves the checkout's own dist/ alone.
describe("the built command (the bundle bin/sessiontree.js runs after npm run build)", () => {
  const ws = tempWorkspace();
  const pkg = join(ws.dir, "pkg");
  const bin = join(pkg, "bin/sessiontree.js");

  before(() => {
    const dist = join(pkg, "dist");
    mkdirSync(join(pkg, "bin"), { recursive: true });
    copyFileSync(join(REPO, "bin/sessiontree.js"), bin);
    copyFileSync(join(REPO, "bin/package.json"), join(pkg, "bin/package.json"));
    copyFileSync(join(REPO, "package.json"), join(pkg, "package.json"));
    symlinkSync(join(REPO, "node_modules"), join(pkg, "node_modules"));
    node([join(REPO, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json", "--outDir", dist]);
    node(["--import", "tsx", "src/viewer/write-page-script.ts", join(dist, "viewer")]);
    node(["scripts/bundle-cli.mjs", dist]);
  });
  after(() => ws.cleanup());

  function run(args: string[]): { code: number | null; stdout: string; stderr: string } {
    const child = spawnSync(process.execPath, [bin, ...args], {
      cwd: ws.dir,
      env: cliEnv(ws.dir),
      encoding: "utf8",
      maxBuffer: 256 * 1024 * 1024,
    });
    return { code: child.status, stdout: child.stdout, stderr: child.stderr + (child.error?.message ?? "") };
  }

  it("runs from the bundle, and ls loads only the bundle's own chunks: no package, no other module", () => {
    const report = JSON.parse(
      node(["scripts/cli-modules.mjs", "--json", "--bin", bin, "ls"], cliEnv(ws.dir)),
    );
    assert.equal(report.status, 0);
    assert.deepEqual(report.packages, []);
    const outside = report.project.filter(
      (file: string) => file !== "bin/sessiontree.js" && !file.startsWith("dist/cli-bundle/"),
    );
    assert.deepEqual(outside, [], "ls loaded modules outside the bundle");
    const chunks = report.project.filter((file: string) => file.startsWith("dist/cli-bundle/"));
    assert.ok(chunks.includes("dist/cli-bundle/main.js"));
    assert.ok(
      chunks.some((file: string) => /\/ls-run-[A-Z0-9]+\.js$/.test(file)),
      "the ls work is its own chunk",
    );
    const all = readdirSync(join(pkg, "dist/cli-bundle"));
    assert.ok(chunks.length < all.length / 2, `ls loaded ${chunks.length} of ${all.length} chunks`);
  });

  it("reads, writes and exports a real session, as the source does", () => {
    const file = copyFixture("before-compaction.jsonl", ws.dir);
    const tree = run(["tree", file]);
    assert.equal(tree.code, 0, tree.stderr);
    assert.match(tree.stdout, /\S/);
    const html = run(["export", file, "--html"]);
    assert.equal(html.code, 0, html.stderr);
    assert.match(html.stdout, /<script>/, "the viewer's prebuilt page script is found beside its chunk");
    const fsck = run(["fsck", file]);
    assert.equal(fsck.code, 0, fsck.stderr);
  });

  it("runs as CommonJS (bin/package.json), and the same as an ES module (a copy without it)", () => {
    // bin/package.json makes the launcher CommonJS, so a command that imports no package never
    // starts node's ES module loader; a copy of the file where no such package.json applies is an
    // ES module, and must run the same build the same way. A preload says which one ran.
    const esmBin = join(pkg, "bin-esm/sessiontree.js");
    mkdirSync(dirname(esmBin), { recursive: true });
    copyFileSync(bin, esmBin);
    const probe = join(ws.dir, "which-module-kind.cjs");
    writeFileSync(
      probe,
      "const ran = () => Object.keys(require.cache).some((f) => f.endsWith('sessiontree.js'));\n" +
        "process.on('exit', () => process.stderr.write('@@commonjs=' + ran() + '@@'));\n",
    );
    const file = copyFixture("before-compaction.jsonl", ws.dir);
    for (const args of [["tree", file], ["show", file], ["--version"]]) {
      const [commonJs, esm] = [bin, esmBin].map((launcher) =>
        spawnSync(process.execPath, ["--require", probe, launcher, ...args], {
          cwd: ws.dir,
          env: cliEnv(ws.dir),
          encoding: "utf8",
        }),
      );
      assert.equal(commonJs?.status, 0, commonJs?.stderr);
      assert.equal(esm?.status, 0, esm?.stderr);
      assert.match(commonJs?.stderr ?? "", /@@commonjs=true@@/);
      assert.match(esm?.stderr ?? "", /@@commonjs=false@@/);
      assert.equal(esm?.stdout, commonJs?.stdout, `${args[0]}: the same output either way`);
    }
  });

  it("keeps a code cache per command: written by a first run, a damaged one recompiled and rewritten", () => {
    const file = copyFixture("before-compaction.jsonl", ws.dir);
    const first = run(["show", file]);
    assert.equal(first.code, 0, first.stderr);
    const builds = join(ws.dir, ".cache/sessiontree/cli-code");
    const [build] = readdirSync(builds);
    const dir = join(builds, build as string, "show");
    const caches = readdirSync(dir).filter((name) => name.endsWith(".cache"));
    assert.ok(caches.length > 0, "the first run wrote the chunks' code cache");
    for (const name of caches) writeFileSync(join(dir, name), "not V8's code cache");
    const again = run(["show", file]);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stdout, first.stdout, "a damaged cache changes nothing the command does");
    for (const name of caches)
      assert.notEqual(readFileSync(join(dir, name), "utf8"), "not V8's code cache", `${name} was rewritten`);
    // Damage inside a cache of the right length: V8 would take it (it checks only its header) and
    // abort the process on every run; the loader's own hash must keep it from V8.
    const largest = caches
      .map((name) => ({ name, bytes: readFileSync(join(dir, name)) }))
      .sort((a, b) => b.bytes.length - a.bytes.length)[0] as { name: string; bytes: Buffer };
    const middle = largest.bytes.length >> 1;
    for (let at = middle; at < middle + 64; at++) largest.bytes[at] = (largest.bytes[at] as number) ^ 0x5a;
    writeFileSync(join(dir, largest.name), largest.bytes);
    const damaged = run(["show", file]);
    assert.equal(damaged.code, 0, damaged.stderr);
    assert.equal(damaged.stdout, first.stdout);
    const healed = run(["show", file]);
    assert.equal(healed.code, 0, `the rewritten cache is sound: ${healed.stderr}`);
  });

  it("keeps each heavy command's packages out of the others: serve and view still start their help", () => {
    for (const command of ["serve", "view", "chat", "keys", "import"]) {
      const help = run([command, "--help"]);
      assert.equal(help.code, 0, `${command}: ${help.stderr}`);
      assert.match(help.stdout, new RegExp(`Usage: sessiontree ${command}`));
    }
    assert.ok(existsSync(join(pkg, "dist/cli-bundle/page-script.bundle.js")));
  });
});
