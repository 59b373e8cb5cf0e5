#!/usr/bin/env node
// A throwaway S3-compatible server for tests and benchmarks: s3rver (an npm package, a dev
// dependency) in its own process on a free loopback port, over a temp folder, stopped and removed
// afterwards. The AWS SDK talks to it over HTTP exactly as to S3 (path-style URLs; s3rver accepts
// the access key "S3RVER" with the secret "S3RVER"). Run directly to keep one up for development:
//   node scripts/s3.mjs        (prints the endpoint, stops on Ctrl-C)
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

export const S3RVER_CREDENTIALS = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };

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

function accepts(port) {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

export async function startS3() {
  const dir = mkdtempSync(join(tmpdir(), "sessiontree-s3-"));
  const port = await freePort();
  const bin = join(dirname(createRequire(import.meta.url).resolve("s3rver/package.json")), "bin/s3rver.js");
  const child = spawn(process.execPath, [bin, "-d", dir, "-a", "127.0.0.1", "-p", String(port), "--silent"], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const deadline = Date.now() + 15_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`s3rver did not start on port ${port}: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  };
  return { endpoint: `http://127.0.0.1:${port}`, stop };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { endpoint, stop } = await startS3();
  console.log(endpoint);
  const quit = () => {
    stop();
    process.exit(0);
  };
  process.on("SIGINT", quit);
  process.on("SIGTERM", quit);
  setInterval(() => {}, 1 << 30);
}
