import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { ViewerSessionSummary } from "../../src/viewer/source.js";
import { makeViewerRoots, type ViewerRoots } from "./support/sessions.js";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const START = join(REPO, "src/cli/commands/view-main.ts");

interface Run {
  child: ChildProcess;
  stdout: string;
  stderr: string;
  exit: Promise<number | null>;
}

/** `npm start`'s entry as a user runs it: a child process with its own environment. */
function runStart(args: string[], env: Record<string, string>): Run {
  const child = spawn(process.execPath, ["--import", "tsx", START, ...args], {
    cwd: REPO,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const run: Run = { child, stdout: "", stderr: "", exit: new Promise((done) => child.on("exit", done)) };
  child.stdout?.on("data", (chunk: Buffer) => {
    run.stdout += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    run.stderr += chunk.toString();
  });
  return run;
}

async function waitForUrl(run: Run): Promise<string> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const match = /sessiontree viewer: (http:\/\/127\.0\.0\.1:\d+\/)/.exec(run.stdout);
    // The last line printed: once it is there, so is everything before it.
    if (match?.[1] && run.stdout.includes("Press Ctrl+C to stop.")) return match[1];
    if (run.child.exitCode !== null) break;
    await new Promise((done) => setTimeout(done, 50));
  }
  throw new Error(`no address printed; stdout: ${run.stdout} stderr: ${run.stderr}`);
}

/** fetch() cannot set Host, so ask with node:http. */
function statusWithHost(url: string, host: string): Promise<number | undefined> {
  return new Promise((done, fail) => {
    const { port } = new URL(url);
    const req = request({ host: "127.0.0.1", port, path: "/api/origins", headers: { host } }, (res) => {
      res.resume();
      done(res.statusCode);
    });
    req.on("error", fail);
    req.end();
  });
}

async function stop(run: Run): Promise<void> {
  if (run.child.exitCode === null && run.child.pid !== undefined) run.child.kill("SIGTERM");
  await run.exit;
}

describe("npm start (sessiontree view on the default roots)", () => {
  let roots: ViewerRoots;
  before(() => {
    roots = makeViewerRoots();
  });
  after(() => rmSync(roots.base, { recursive: true, force: true }));

  it("serves our sessions and pi's from SESSIONTREE_ROOT and PI_CODING_AGENT_DIR", async () => {
    const run = runStart(["--no-open", "--port", "0"], {
      SESSIONTREE_ROOT: roots.root,
      PI_CODING_AGENT_DIR: roots.piDir,
    });
    try {
      const url = await waitForUrl(run);
      assert.match(run.stdout, new RegExp(`sessiontree: ${join(roots.root, "sessions")}\\n`));
      const { sessions } = (await (await fetch(`${url}api/sessions`)).json()) as {
        sessions: ViewerSessionSummary[];
      };
      assert.deepEqual(sessions.map((s) => s.source).sort(), ["pi", "pi", "sessiontree"]);
      const page = await fetch(url);
      assert.equal(page.status, 200);
      assert.match(await page.text(), /<canvas id="tree"/);
      // A DNS-rebinding page reaches 127.0.0.1 with its own host name: refused.
      assert.equal(await statusWithHost(url, "attacker.example"), 403);
      assert.equal(await statusWithHost(url, new URL(url).host), 200);
    } finally {
      await stop(run);
    }
  });

  it("starts on a machine with no sessions at all and says where it looked", async () => {
    const empty = mkdtempSync(join(tmpdir(), "sessiontree-empty-"));
    const run = runStart(["--no-open", "--port", "0"], {
      SESSIONTREE_ROOT: join(empty, "st"),
      PI_CODING_AGENT_DIR: join(empty, "pi"),
    });
    try {
      const url = await waitForUrl(run);
      assert.match(run.stdout, /\(not found\)/);
      const { sessions } = (await (await fetch(`${url}api/sessions`)).json()) as { sessions: unknown[] };
      assert.deepEqual(sessions, []);
    } finally {
      await stop(run);
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it("takes --root and --pi, and exits 2 on a bad --port", async () => {
    const run = runStart(
      ["--no-open", "--port", "0", "--root", roots.root, "--pi", join(roots.base, "nowhere")],
      {},
    );
    try {
      const url = await waitForUrl(run);
      const { sessions } = (await (await fetch(`${url}api/sessions`)).json()) as {
        sessions: ViewerSessionSummary[];
      };
      assert.deepEqual(
        sessions.map((s) => s.source),
        ["sessiontree"],
      );
    } finally {
      await stop(run);
    }
    const bad = runStart(["--no-open", "--port", "eighty"], {});
    assert.equal(await bad.exit, 2);
    assert.match(bad.stderr, /--port/);
  });
});
