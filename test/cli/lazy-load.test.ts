import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { DEFAULT_VIEWER_PORT } from "../../src/viewer/serve.js";
import { cliEnv, REPO, runBin, tempWorkspace } from "./helpers.js";

interface LoadedModules {
  status: number;
  project: string[];
  packages: string[];
}

/** What a command loads, from scripts/cli-modules.mjs over the TypeScript source. */
function modulesOf(args: string[], env: Record<string, string>, cwd: string): LoadedModules {
  const child = spawnSync(process.execPath, [join(REPO, "scripts/cli-modules.mjs"), "--json", ...args], {
    cwd,
    env: { ...env, SESSIONTREE_FROM_SOURCE: "1" },
    encoding: "utf8",
  });
  assert.equal(child.status, 0, child.stderr);
  return JSON.parse(child.stdout) as LoadedModules;
}

// Every command loads only what it uses: `ls` is run often (and by scripts), and the server, the
// databases and the agent cost most of a second to load.
describe("what a command loads", () => {
  const ws = tempWorkspace();
  after(() => ws.cleanup());

  it("ls loads neither the service, the databases, the viewer, the agent nor the session manager", () => {
    const loaded = modulesOf(["ls"], cliEnv(ws.dir), ws.dir);
    assert.equal(loaded.status, 0);
    for (const heavy of ["better-sqlite3", "pg", "hono", "@hono/node-server", "jose", "@sinclair/typebox"])
      assert.ok(!loaded.packages.includes(heavy), `ls loaded ${heavy}`);
    // Progress bars are required only when one is shown.
    assert.ok(!loaded.packages.includes("cli-progress"), "ls loaded cli-progress");
    const layers = new Set(loaded.project.map((path) => path.split("/")[1]));
    for (const layer of ["server", "store", "agent", "viewer", "client"])
      assert.ok(!layers.has(layer), `ls loaded src/${layer}: ${[...layers].join(", ")}`);
    assert.ok(!loaded.project.includes("src/session/session-manager.ts"));
    // Commands are registered without their implementations.
    assert.deepEqual(
      loaded.project.filter((path) => path.endsWith("-run.ts")),
      ["src/cli/commands/ls-run.ts"],
    );
  });

  it("the view command's help names the viewer's real default port", () => {
    const help = runBin(["view", "--help"], { cwd: ws.dir, env: cliEnv(ws.dir) });
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, new RegExp(`default ${DEFAULT_VIEWER_PORT}\\)`));
  });
});
