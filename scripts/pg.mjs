#!/usr/bin/env node
// A throwaway PostgreSQL cluster for tests and benchmarks: initdb + pg_ctl on a free loopback port,
// in a temp folder, stopped and removed afterwards. Run directly to keep one up for development:
//   node scripts/pg.mjs        (prints the URL, stops on Ctrl-C)
import { execFileSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

function findBin(name) {
  const root = "/usr/lib/postgresql";
  if (existsSync(root)) {
    const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
    for (const v of versions) {
      const candidate = join(root, v, "bin", name);
      if (existsSync(candidate)) return candidate;
    }
  }
  try {
    return execFileSync("which", [name], { encoding: "utf8" }).trim();
  } catch {
    throw new Error(
      `PostgreSQL's ${name} was not found: install the postgresql package (scripts/system-deps.sh)`,
    );
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** initdb refuses to run as root; as root the cluster belongs to the postgres user. */
function runAsOwner(bin, args) {
  const isRoot = process.getuid?.() === 0;
  const [cmd, argv] = isRoot ? ["runuser", ["-u", "postgres", "--", bin, ...args]] : [bin, args];
  execFileSync(cmd, argv, { stdio: ["ignore", "pipe", "pipe"] });
}

export async function startPostgres() {
  const dir = mkdtempSync(join(tmpdir(), "sessiontree-pg-"));
  const data = join(dir, "data");
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
    chownSync(dir, uid, gid);
  }
  chmodSync(dir, 0o700);
  const port = await freePort();
  runAsOwner(findBin("initdb"), ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"]);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  runAsOwner(findBin("pg_ctl"), ["-D", data, "-o", options, "-l", join(dir, "log"), "-w", "start"]);
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    try {
      runAsOwner(findBin("pg_ctl"), ["-D", data, "-m", "immediate", "-w", "stop"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  return { url, stop };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { url, stop } = await startPostgres();
  console.log(url);
  const quit = () => {
    stop();
    process.exit(0);
  };
  process.on("SIGINT", quit);
  process.on("SIGTERM", quit);
  setInterval(() => {}, 1 << 30);
}
