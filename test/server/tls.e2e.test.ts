// TLS (issue 16.14): `serve --tls-cert/--tls-key` answers over HTTPS with the certificate given,
// and listening beyond loopback over plain HTTP prints a warning.
import assert from "node:assert/strict";
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, it } from "node:test";
import { plainHttpWarning } from "../../src/server/listen/listener.js";

const dir = mkdtempSync(join(tmpdir(), "st-tls-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A self-signed certificate for 127.0.0.1, made with openssl. */
function selfSigned(): { cert: string; key: string; certFile: string; keyFile: string } {
  const certFile = join(dir, "cert.pem");
  const keyFile = join(dir, "key.pem");
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-keyout",
      keyFile,
      "-out",
      certFile,
      "-days",
      "1",
      "-subj",
      "/CN=127.0.0.1",
      "-addext",
      "subjectAltName=IP:127.0.0.1",
    ],
    { stdio: "ignore" },
  );
  return { cert: readFileSync(certFile, "utf8"), key: readFileSync(keyFile, "utf8"), certFile, keyFile };
}

/** `sessiontree serve` with `flags`; resolves with its URL and what it wrote to stderr so far. */
async function serve(flags: string[]): Promise<{ child: ChildProcess; url: string; stderr: () => string }> {
  const script = join(import.meta.dirname, "cli-child.ts");
  const argv = ["--import", "tsx", script, "serve", "--port", "0", "--data", join(dir, "data"), ...flags];
  const child = spawn(process.execPath, argv, { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stderr?.on("data", (chunk) => {
    err += chunk;
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`server exited with ${code}: ${err}`)));
    child.stdout?.on("data", (chunk) => {
      out += chunk;
      const match = /listening on (https?:\/\/\S+)/.exec(out);
      if (match?.[1]) resolve(match[1]);
    });
  });
  return { child, url, stderr: () => err };
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}

function httpsGet(url: string, ca: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk) => {
        body += chunk;
      });
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

it("serves HTTPS with --tls-cert/--tls-key, trusted through the certificate given", async () => {
  const tls = selfSigned();
  const server = await serve(["--tls-cert", tls.certFile, "--tls-key", tls.keyFile]);
  try {
    assert.match(server.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    const health = await httpsGet(`${server.url}/healthz`, tls.cert);
    assert.equal(health.status, 200);
    await assert.rejects(httpsGet(`${server.url}/healthz`, ""), "an untrusted certificate is refused");
    assert.doesNotMatch(server.stderr(), /without TLS/);
  } finally {
    await stop(server.child);
  }
});

it("refuses --tls-cert without --tls-key", async () => {
  const tls = selfSigned();
  await assert.rejects(serve(["--tls-cert", tls.certFile]), /--tls-cert and --tls-key go together/);
});

it("warns when listening beyond loopback without TLS, and not on loopback", async () => {
  const open = await serve(["--host", "0.0.0.0"]);
  try {
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.match(open.stderr(), /listening on 0\.0\.0\.0 without TLS/);
  } finally {
    await stop(open.child);
  }
  assert.equal(plainHttpWarning("127.0.0.1", false), null);
  assert.equal(plainHttpWarning("::1", false), null);
  assert.equal(plainHttpWarning("localhost", false), null);
  assert.equal(plainHttpWarning("0.0.0.0", true), null);
  assert.match(String(plainHttpWarning("::", false)), /without TLS/);
});
