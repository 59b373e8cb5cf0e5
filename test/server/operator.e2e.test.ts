// An operator's view of `sessiontree serve` and its admin commands (docs/server.md): configuration
// refusals, logs, timeouts, backup/restore, readiness across database outages, migrations at start
// and shutdown. Each test names the documented contract it checks. The CLI runs as an operator
// runs it (bin/sessiontree.js, from source), the PostgreSQL tests on a throwaway cluster of this
// file's own that can be stopped, restarted and frozen.
import assert from "node:assert/strict";
import { type ChildProcess, execFile, execFileSync, spawn } from "node:child_process";
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { connect, createServer as createNetServer, type Server as NetServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, it } from "node:test";
import Database from "better-sqlite3";
import pg from "pg";
import { runBackup, runRestore } from "../../src/cli/commands/backup-run.js";
import { parseCount, parseDays, parseHost, parseInteger } from "../../src/cli/option-parsers.js";
import type { SessionEntry } from "../../src/core/entry.js";
import { createApiKey, createServer, openBackends, type SessionTreeServer } from "../../src/server/index.js";
import { backupSqlite, restoreSqlite } from "../../src/server/ops/backup.js";
import { timeoutCheckIntervalMs } from "../../src/server/ops/timeouts.js";
import { startTimer } from "../../src/server/retention.js";
import { redactPassword } from "../../src/store/redact-location.js";
import { resolveStoreBackend } from "../../src/store/registry.js";
import { call, quietly } from "./helpers.js";
import { bigSessionJsonl, importSession, keyFor } from "./tenant-load.js";

const BIN = join(import.meta.dirname, "..", "..", "bin", "sessiontree.js");
const scratch = mkdtempSync(join(tmpdir(), "st-operator-"));
const children = new Set<ChildProcess>();

after(() => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  rmSync(scratch, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------
// The CLI as an operator runs it

interface CliProcess {
  child: ChildProcess;
  /** The URL once it says `listening on …`; rejects if it exits first. */
  listening: Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stdout(): string;
  stderr(): string;
  /** SIGTERM (if still running), then the exit. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `sessiontree …args` in a child process, from source, with an empty SESSIONTREE_DATABASE (unset). */
function startCli(args: string[], env: Record<string, string | undefined> = {}): CliProcess {
  const child = spawn(process.execPath, [BIN, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, SESSIONTREE_FROM_SOURCE: "1", SESSIONTREE_DATABASE: "", NO_COLOR: "1", ...env },
  });
  children.add(child);
  let out = "";
  let err = "";
  child.stdout?.setEncoding("utf8");
  child.stderr?.setEncoding("utf8");
  child.stdout?.on("data", (chunk: string) => {
    out += chunk;
  });
  child.stderr?.on("data", (chunk: string) => {
    err += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => {
      children.delete(child);
      resolve({ code, signal });
    }),
  );
  const listening = new Promise<string>((resolve, reject) => {
    const look = () => {
      const match = /listening on (https?:\/\/\S+)/.exec(out);
      if (match?.[1]) resolve(match[1]);
    };
    child.stdout?.on("data", look);
    void exited.then(({ code }) => reject(new Error(`exited with ${code} before listening`)));
  });
  listening.catch(() => {});
  return {
    child,
    listening,
    exited,
    stdout: () => out,
    stderr: () => err,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
}

interface CliOutcome {
  code: number | null;
  /** It got as far as listening (and was then stopped by the test). */
  started: boolean;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end; a `serve` that starts listening is stopped (SIGTERM) and reported as started. */
async function runCli(
  args: string[],
  env: Record<string, string | undefined> = {},
  timeoutMs = 30_000,
): Promise<CliOutcome> {
  const cli = startCli(args, env);
  let started = false;
  void cli.listening.then(
    () => {
      started = true;
      // Not at once: the signal handlers are installed just after the start line, and the first
      // maintenance run (retention) starts then too; SIGTERM waits for it.
      setTimeout(() => cli.child.kill("SIGTERM"), 1_000);
    },
    () => {},
  );
  const timer = setTimeout(() => cli.child.kill("SIGKILL"), timeoutMs);
  const { code } = await cli.exited;
  clearTimeout(timer);
  return { code, started, stdout: cli.stdout(), stderr: cli.stderr() };
}

function describeOutcome(outcome: CliOutcome): string {
  if (outcome.started) return "started a server";
  return outcome.code === 2 && outcome.stderr.trim() !== "" ? "refused (exit 2)" : `exit ${outcome.code}`;
}

// ---------------------------------------------------------------------------------------------
// Data prepared in-process, as the server would have written it

const text = (size: number, fill = "B") => fill.repeat(size);

function entry(id: string, parentId: string | null, content: unknown): SessionEntry {
  return {
    type: "message",
    id,
    parentId,
    timestamp: new Date().toISOString(),
    message: { role: "user", content, timestamp: Date.now() },
  } as unknown as SessionEntry;
}

/** A SQLite data folder holding one session of `owner`, soft-deleted just now. */
async function dataWithTrashedSession(data: string, owner: string): Promise<string> {
  const backends = await openBackends({ data });
  try {
    const session = await backends.store.createSession(owner, { cwd: "/trash" });
    await backends.store.deleteSession(owner, session.id);
    return session.id;
  } finally {
    await closeBackends(backends);
  }
}

/** A SQLite data folder holding one session whose second entry has a text part past 64 KiB (kept as a blob). */
async function dataWithBlobSession(data: string, owner: string, big: string): Promise<string> {
  const backends = await openBackends({ data });
  try {
    const session = await backends.store.createSession(owner, { cwd: "/blob" });
    await backends.store.appendEntries(owner, session.id, [
      entry("small001", null, "a small first message"),
      entry("large001", "small001", [{ type: "text", text: big }]),
    ]);
    return session.id;
  } finally {
    await closeBackends(backends);
  }
}

async function closeBackends(backends: Awaited<ReturnType<typeof openBackends>>): Promise<void> {
  await backends.db.close();
  await backends.store.close();
  await backends.close?.();
}

async function stillInTrash(data: string, owner: string, sessionId: string): Promise<boolean> {
  const backends = await openBackends({ data });
  try {
    const summary = await backends.store.getSummary(owner, sessionId, { includeDeleted: true });
    return summary.id === sessionId;
  } catch {
    return false;
  } finally {
    await closeBackends(backends);
  }
}

// ---------------------------------------------------------------------------------------------
// A PostgreSQL cluster of this file's own: stop, start again (same port), freeze, thaw

interface Cluster {
  url: string;
  /** A new empty database on the cluster. */
  database(): Promise<string>;
  stop(): void;
  start(): void;
  /** SIGSTOP the postmaster and every backend: a database that hangs instead of refusing. */
  freeze(): void;
  thaw(): void;
  destroy(): void;
}

/** PostgreSQL's tools, newest installed version first (as scripts/pg.mjs finds them). */
function pgBin(name: string): string {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  for (const version of versions) {
    const candidate = join(root, version, "bin", name);
    if (existsSync(candidate)) return candidate;
  }
  return execFileSync("which", [name], { encoding: "utf8" }).trim();
}

function ownerCommand(bin: string, args: string[]): [string, string[]] {
  const root = process.getuid?.() === 0;
  return root ? ["runuser", ["-u", "postgres", "--", bin, ...args]] : [bin, args];
}

function asOwner(bin: string, args: string[]): void {
  const [cmd, argv] = ownerCommand(bin, args);
  execFileSync(cmd, argv, { stdio: ["ignore", "pipe", "pipe"] });
}

/** The same without blocking this process's event loop (initdb takes seconds). */
function asOwnerAsync(bin: string, args: string[]): Promise<void> {
  const [cmd, argv] = ownerCommand(bin, args);
  return new Promise((resolve, reject) =>
    execFile(cmd, argv, (error) => (error ? reject(error) : resolve())),
  );
}

async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

let clusterPromise: Promise<Cluster> | undefined;
// initdb runs while the first tests do.
before(() => {
  cluster().catch(() => {});
});
let clusterHandle: Cluster | undefined;
after(() => clusterHandle?.destroy());

function cluster(): Promise<Cluster> {
  clusterPromise ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), "st-operator-pg-"));
    if (process.getuid?.() === 0) {
      const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
      const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
      chownSync(dir, uid, gid);
    }
    chmodSync(dir, 0o700);
    const data = join(dir, "data");
    const port = await freePort();
    await asOwnerAsync(pgBin("initdb"), [
      "-D",
      data,
      "-U",
      "postgres",
      "--auth=trust",
      "-E",
      "UTF8",
      "--no-sync",
    ]);
    const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100`;
    const ctl = pgBin("pg_ctl");
    const start = () => asOwner(ctl, ["-D", data, "-o", options, "-l", join(dir, "log"), "-w", "start"]);
    const stop = (mode = "fast") => {
      try {
        asOwner(ctl, ["-D", data, "-m", mode, "-w", "stop"]);
      } catch {}
    };
    const pids = () => {
      const postmaster = readFileSync(join(data, "postmaster.pid"), "utf8").split("\n")[0] ?? "";
      let kids: string[] = [];
      try {
        kids = execFileSync("pgrep", ["-P", postmaster], { encoding: "utf8" }).split("\n").filter(Boolean);
      } catch {}
      return [postmaster, ...kids];
    };
    let frozen: string[] = [];
    await asOwnerAsync(ctl, ["-D", data, "-o", options, "-l", join(dir, "log"), "-w", "start"]);
    const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    let databases = 0;
    const handle: Cluster = {
      url,
      async database() {
        const name = `hunt_${process.pid}_${databases++}`;
        const admin = new pg.Client({ connectionString: url });
        await admin.connect();
        await admin.query(`CREATE DATABASE ${name}`);
        await admin.end();
        return url.replace(/\/postgres$/, `/${name}`);
      },
      stop: () => stop("fast"),
      start,
      freeze() {
        frozen = pids();
        execFileSync("kill", ["-STOP", ...frozen]);
      },
      thaw() {
        if (frozen.length) execFileSync("kill", ["-CONT", ...frozen]);
        frozen = [];
      },
      destroy() {
        handle.thaw();
        stop("immediate");
        rmSync(dir, { recursive: true, force: true });
      },
    };
    clusterHandle = handle;
    return handle;
  })();
  return clusterPromise;
}

// =============================================================================================
// Configuration

describe("configuration (docs/server.md, Settings; Authentication; TLS; Storage)", () => {
  // Every command line here runs at once, in its own process, as an operator would run it.
  const outcomes = new Map<string, CliOutcome>();
  const trash: Record<"serve" | "purge", { data: string; sessionId: string }> = {
    serve: { data: join(scratch, "config", "serve-retention"), sessionId: "" },
    purge: { data: join(scratch, "config", "purge"), sessionId: "" },
  };
  const secretUrl = "postgress://sessiontree:hunter2-secret@db.internal:5432/sessiontree";
  const emptyCases = [
    "serve --retention-days ''",
    "serve --rate-limit ''",
    "serve --host ''",
    "purge-deleted --older-than-days ''",
  ];

  before(async () => {
    const dir = join(scratch, "config");
    trash.serve.sessionId = await dataWithTrashedSession(trash.serve.data, "ops");
    trash.purge.sessionId = await dataWithTrashedSession(trash.purge.data, "ops");
    const cert = join(dir, "cert.pem");
    writeFileSync(cert, "not used: the key is missing\n");
    const cases: Array<[string, string[], Record<string, string | undefined>?]> = [
      [emptyCases[0] as string, ["serve", "--port", "0", "--data", trash.serve.data, "--retention-days", ""]],
      [emptyCases[1] as string, ["serve", "--port", "0", "--data", join(dir, "rate"), "--rate-limit", ""]],
      [emptyCases[2] as string, ["serve", "--port", "0", "--data", join(dir, "host"), "--host", ""]],
      [emptyCases[3] as string, ["purge-deleted", "--older-than-days", "", "--data", trash.purge.data]],
      [
        "jwt",
        ["serve", "--port", "0", "--data", join(dir, "jwt"), "--jwt-secret-env", "HUNT_UNSET_SECRET"],
        { HUNT_UNSET_SECRET: undefined },
      ],
      ["tls", ["serve", "--port", "0", "--data", join(dir, "tls"), "--tls-cert", cert]],
      ["url serve", ["serve", "--port", "0", "--database", secretUrl]],
      ["url keys", ["keys", "list", "--user", "ops", "--database", secretUrl, "--json"]],
    ];
    const results = await Promise.all(cases.map(([, args, env]) => runCli(args, env)));
    for (const [i, [name]] of cases.entries()) outcomes.set(name, results[i] as CliOutcome);
  });

  // An operator's unit or container passes `--retention-days ${RETENTION_DAYS}` and the variable is
  // unset: the flag arrives as "". A number flag given "" must be refused (exit 2, a message) as
  // `--key-max-age ''` is, never read as 0: 0 retention days purges the whole trash at start, a
  // rate limit of 0 is "off". An empty --host is not "every interface" (docs: loopback unless
  // --host says otherwise).
  it("`serve --retention-days ''` purges nothing from the trash", async () => {
    assert.ok(
      await stillInTrash(trash.serve.data, "ops", trash.serve.sessionId),
      `a session soft-deleted a moment ago was hard-purged (${describeOutcome(outcomes.get(emptyCases[0] as string) as CliOutcome)})`,
    );
  });

  it("`purge-deleted --older-than-days ''` purges nothing from the trash", async () => {
    assert.ok(
      await stillInTrash(trash.purge.data, "ops", trash.purge.sessionId),
      `a session soft-deleted a moment ago was hard-purged: ${outcomes.get(emptyCases[3] as string)?.stdout.trim()}`,
    );
  });

  it("every empty numeric or host value is refused with exit 2 and a message; no server starts", () => {
    const seen = Object.fromEntries(
      emptyCases.map((name) => [name, describeOutcome(outcomes.get(name) as CliOutcome)]),
    );
    const expected = Object.fromEntries(emptyCases.map((name) => [name, "refused (exit 2)"]));
    assert.deepEqual(seen, expected);
  });

  it("--jwt-secret-env naming an unset variable, and --tls-cert without --tls-key: exit 2 saying why", () => {
    const jwt = outcomes.get("jwt") as CliOutcome;
    const tls = outcomes.get("tls") as CliOutcome;
    assert.equal(jwt.started, false);
    assert.equal(tls.started, false);
    assert.equal(jwt.code, 2);
    assert.equal(tls.code, 2);
    assert.match(
      jwt.stderr + jwt.stdout,
      /HUNT_UNSET_SECRET/,
      `exit ${jwt.code} and nothing printed names the unset variable: ${JSON.stringify(jwt.stderr)}`,
    );
    assert.match(
      tls.stderr + tls.stdout,
      /--tls-cert and --tls-key go together/,
      `exit ${tls.code} and nothing printed says why: ${JSON.stringify(tls.stderr)}`,
    );
  });

  it("a database URL no backend takes (a typo in the scheme) is refused without printing its password", () => {
    for (const name of ["url serve", "url keys"]) {
      const outcome = outcomes.get(name) as CliOutcome;
      assert.equal(outcome.started, false);
      assert.notEqual(outcome.code, 0, `${name} exits non-zero`);
      assert.ok(outcome.stderr.length + outcome.stdout.length > 0, `${name} says why`);
      assert.doesNotMatch(
        outcome.stderr + outcome.stdout,
        /hunter2-secret/,
        `${name} printed the database password: ${(outcome.stderr + outcome.stdout).trim()}`,
      );
    }
  });

  it("every numeric option takes digits only: blank, spaced, hex, exponent and signed text are refused", () => {
    const parsers: Array<[string, (value: string) => unknown]> = [
      ["parseCount", parseCount],
      ["parseInteger(0, 65535)", parseInteger(0, 65535)],
      ["parseDays", parseDays],
    ];
    for (const [name, parse] of parsers) {
      for (const bad of ["", " ", " 5", "5 ", "0x10", "1e3", "+5", "-1", "5.", "Infinity", "NaN", "5d"])
        assert.throws(
          () => parse(bad),
          { code: "commander.invalidArgument" },
          `${name}(${JSON.stringify(bad)})`,
        );
      assert.equal(parse("0"), 0, name);
      assert.equal(parse("30"), 30, name);
    }
    assert.equal(parseDays("0.5"), 0.5);
    assert.throws(() => parseInteger(0, 10)("11"), { code: "commander.invalidArgument" });
    assert.throws(() => parseCount("99999999999999999999"), { code: "commander.invalidArgument" });
    for (const bad of ["", " ", "http://0.0.0.0", "a b"])
      assert.throws(() => parseHost(bad), { code: "commander.invalidArgument" }, JSON.stringify(bad));
    for (const good of ["127.0.0.1", "0.0.0.0", "::", "::1", "localhost", "fe80::1%eth0"])
      assert.equal(parseHost(good), good);
  });

  it("a mistyped database URL is shown as written, its password hidden, whatever the typo", () => {
    const typos = [
      "postgress://app:hunter2-secret@db:5432/st",
      "POSTGRES://app:hunter2-secret@db/st",
      " postgres://app:hunter2-secret@db/st",
      "postgres:/app:hunter2-secret@db/st",
      "postgres//app:hunter2-secret@db/st",
      "app:hunter2-secret@db/st",
      "postgress://app:hunter2@secret@db/st",
      "postgress://db/st?user=app&password=hunter2-secret",
    ];
    for (const typo of typos) {
      const error = (() => {
        try {
          resolveStoreBackend(typo);
        } catch (caught) {
          return caught as { code: string; message: string; details: unknown };
        }
        assert.fail(`${typo} was taken`);
      })();
      assert.equal(error.code, "invalid_argument");
      assert.doesNotMatch(error.message + JSON.stringify(error.details), /hunter2|secret/, typo);
      assert.match(error.message, /\*\*\*\*/, typo);
    }
    assert.equal(
      redactPassword("POSTGRES://app:pw@db/st"),
      "POSTGRES://app:****@db/st",
      "the scheme as written",
    );
    assert.equal(redactPassword("sqlite:/data/a@b.db"), "sqlite:/data/a@b.db", "no password: unchanged");
    assert.equal(redactPassword("postgres://db:5432/st"), "postgres://db:5432/st");
  });
});

// =============================================================================================
// The start line and the log stream

describe("the start line and the log stream (docs/server.md, Access logs; A systemd unit)", () => {
  let cli: CliProcess;
  let ended: { code: number | null };
  before(async () => {
    const dir = join(scratch, "log-stream");
    mkdirSync(dir, { recursive: true });
    const file = join(dir, "named.db");
    cli = startCli(["serve", "--port", "0", "--database", `sqlite:${file}`]);
    const url = await cli.listening;
    await call(url, "GET", "/healthz");
    await call(url, "GET", "/v1/sessions");
    ended = await cli.stop();
  });

  it("names the backend it serves from: `--database sqlite:FILE` is SQLite, not PostgreSQL", () => {
    assert.equal(ended.code, 0);
    const line = cli
      .stdout()
      .split("\n")
      .find((l) => l.includes("listening on"));
    assert.ok(line, "a start line");
    assert.doesNotMatch(line, /PostgreSQL/, line);
    assert.match(line, /SQLite/, line);
  });

  it("a failed maintenance run is one JSON error line on stderr", async () => {
    const written: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = ((chunk: string) => {
      written.push(String(chunk));
      return true;
    }) as typeof process.stderr.write;
    try {
      const stop = startTimer(async () => {
        throw new Error("the database went away");
      }, 60_000);
      await sleep(50);
      await stop();
    } finally {
      process.stderr.write = write;
    }
    const lines = written.join("").split("\n").filter(Boolean);
    assert.equal(lines.length, 1, written.join(""));
    const line = JSON.parse(lines[0] as string);
    assert.equal(line.level, "error");
    assert.equal(line.msg, "maintenance failed");
    assert.equal(line.error.message, "the database went away");
  });

  it("stdout is JSON lines, so the documented `journalctl -o cat | jq` reads it from the first line", () => {
    const lines = cli.stdout().split("\n").filter(Boolean);
    assert.ok(lines.length >= 3, "the start line and two request lines");
    const notJson = lines.filter((l) => {
      try {
        return typeof JSON.parse(l) !== "object";
      } catch {
        return true;
      }
    });
    assert.deepEqual(notJson, [], "every line on stdout is one JSON object");
  });
});

// =============================================================================================
// Slow clients

describe("slow clients (docs/server.md, Settings: --headers-timeout, --request-timeout)", () => {
  it("node checks for expired requests every second, or twice per timeout when one is shorter", () => {
    assert.equal(timeoutCheckIntervalMs(), 1_000, "node's own timeouts (60 s, 300 s)");
    assert.equal(timeoutCheckIntervalMs({ headersMs: 1_000, requestMs: 2_000 }), 500);
    assert.equal(timeoutCheckIntervalMs({ requestMs: 0, headersMs: 0 }), 1_000, "0: no timeout");
    assert.ok(timeoutCheckIntervalMs({ headersMs: 1 }) >= 50, "never a busy loop");
  });

  it("cuts a client trickling its headers or its body once the configured timeout is past", async () => {
    const data = join(scratch, "slowloris");
    const key = await keyFor({ data }, "slow");
    const cli = startCli([
      "serve",
      "--port",
      "0",
      "--data",
      data,
      "--no-access-log",
      "--headers-timeout",
      "1000",
      "--request-timeout",
      "2000",
    ]);
    try {
      const url = new URL(await cli.listening);
      const trickle = (head: string, drip: string) => {
        const started = performance.now();
        const socket = connect(Number(url.port), url.hostname);
        let closedAfter: number | undefined;
        socket.on("error", () => {});
        socket.on("close", () => {
          closedAfter = performance.now() - started;
        });
        socket.write(head);
        const timer = setInterval(() => {
          if (closedAfter === undefined) socket.write(drip);
        }, 250);
        return {
          closedAfter: () => closedAfter,
          end() {
            clearInterval(timer);
            socket.destroy();
          },
        };
      };
      const headers = trickle("GET /v1/sessions HTTP/1.1\r\nHost: x\r\n", "X-Drip: 1\r\n");
      const body = trickle(
        `POST /v1/sessions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n` +
          "Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n",
        " ",
      );
      // Generous: a few seconds past each timeout, on a loaded machine.
      const deadline = performance.now() + 6_000;
      while (performance.now() < deadline && (!headers.closedAfter() || !body.closedAfter()))
        await sleep(100);
      const state = (after: number | undefined) =>
        after === undefined ? "still connected after 6 s" : "cut";
      const seen = { headers: state(headers.closedAfter()), body: state(body.closedAfter()) };
      headers.end();
      body.end();
      assert.deepEqual(
        seen,
        { headers: "cut", body: "cut" },
        "--headers-timeout 1000, --request-timeout 2000",
      );
    } finally {
      await cli.stop();
    }
  });
});

// =============================================================================================
// Out-of-line payloads: a failed read in the logs, in the answer, and in backups

describe("a payload the blob store cannot give back (docs/server.md, Access logs)", () => {
  const big = text(100_000);
  let cli: CliProcess;
  let exported: { status: number; error?: string };
  let entries: { status: number; body: string };

  before(async () => {
    const data = join(scratch, "blob-gone");
    const sessionId = await dataWithBlobSession(data, "blobby", big);
    const key = await keyFor({ data }, "blobby");
    // The blob store is gone (an object store outage, a lost volume): the database still refers to it.
    rmSync(join(data, "blobs"), { recursive: true, force: true });
    cli = startCli(["serve", "--port", "0", "--data", data]);
    const url = await cli.listening;
    const headers = { authorization: `Bearer ${key}` };
    try {
      const response = await fetch(`${url}/v1/sessions/${sessionId}/export`, {
        headers: { ...headers, "x-request-id": "hunt-export-1" },
      });
      exported = { status: response.status };
      try {
        await response.text();
      } catch (error) {
        exported.error = String(error);
      }
    } catch (error) {
      exported = { status: 0, error: String(error) };
    }
    const page = await fetch(`${url}/v1/sessions/${sessionId}/entries`, {
      headers: { ...headers, "x-request-id": "hunt-entries-1" },
    });
    entries = { status: page.status, body: await page.text() };
    await sleep(200);
    await cli.stop();
  });

  it("an export that fails is one JSON error line with its request id, never a bare stack", () => {
    // The 200 and its headers go out before the first page is read: a failure can only cut the
    // body off (the connection ends before the last chunk), and the client must see that.
    assert.equal(exported.status, 200);
    assert.ok(exported.error, "the client sees the body cut off, not a whole (empty) export");
    const stderrLines = cli.stderr().split("\n").filter(Boolean);
    const bare = stderrLines.filter((l) => !l.startsWith("{"));
    assert.deepEqual(bare.slice(0, 3), [], "stderr holds only JSON lines");
    const lines = [...cli.stdout().split("\n"), ...stderrLines]
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as { requestId?: string; level?: string; error?: unknown });
    const failure = lines.find((l) => l.requestId === "hunt-export-1" && l.level === "error");
    assert.ok(
      failure?.error,
      `the failed export (${JSON.stringify(exported)}) is logged as an error under its request id; its lines: ${JSON.stringify(lines.filter((l) => l.requestId === "hunt-export-1"))}`,
    );
  });

  it("a 500 tells the client nothing of the cause: { code: internal }", () => {
    assert.equal(entries.status, 500);
    const body = JSON.parse(entries.body) as { code: string; message: string };
    assert.equal(body.code, "internal", entries.body);
    assert.doesNotMatch(body.message, /blob/i, entries.body);
  });
});

describe("backup and restore (docs/server.md, Backup and restore)", () => {
  it("a restored backup holds every acknowledged write, a text part kept out of line included", async () => {
    const dir = join(scratch, "backup-blobs");
    const live = join(dir, "live");
    const big = text(100_000, "Q");
    const sessionId = await dataWithBlobSession(live, "keeper", big);
    const to = join(dir, "copy.db");
    const report = JSON.parse(await quietly(() => runBackup({ data: live, to, json: true })));
    assert.equal(report.entries, 2);
    const restored = join(dir, "restored");
    await quietly(() => runRestore({ data: restored, from: to }));
    const backends = await openBackends({ data: restored });
    try {
      const session = await backends.store.loadSession("keeper", sessionId).catch((error: Error) => error);
      assert.ok(
        !(session instanceof Error),
        `the restored session cannot be read: ${session instanceof Error ? `${(session as { code?: string }).code} ${session.message}` : ""}`,
      );
      const held = JSON.stringify(session.entries.find((e) => e.id === "large001"));
      assert.ok(held.includes(big), "the large text part is in the restored copy");
    } finally {
      await closeBackends(backends);
    }
  });

  it("a blob the database refers to but the blob store lacks refuses the backup (blob_not_found); nothing is written", async () => {
    const dir = join(scratch, "backup-damaged");
    const live = join(dir, "live");
    await dataWithBlobSession(live, "keeper", text(100_000, "D"));
    rmSync(join(live, "blobs"), { recursive: true, force: true });
    const to = join(dir, "copy.db");
    await assert.rejects(
      backupSqlite(join(live, "sessiontree.db"), to, { blobs: `file:${join(live, "blobs")}` }),
      (error: Error & { code?: string }) => error.code === "blob_not_found" && /keeper/.test(error.message),
    );
    assert.deepEqual(
      readdirSync(dir).sort(),
      ["live"],
      "no backup file, no .blobs folder, no temp file left",
    );
  });

  it("blobs in object storage are not copied, and the report says so", async () => {
    const dir = join(scratch, "backup-s3");
    const live = join(dir, "live");
    await dataWithBlobSession(live, "keeper", text(100_000, "S"));
    const to = join(dir, "copy.db");
    const report = await backupSqlite(join(live, "sessiontree.db"), to, { blobs: "s3://some-bucket/st" });
    assert.deepEqual(report.blobs, {
      referenced: 1,
      location: "s3://some-bucket/st",
      folder: null,
      inObjectStorage: true,
    });
    assert.ok(existsSync(to));
    assert.ok(!existsSync(`${to}.blobs`), "no folder pretending to hold them");
  });

  it("a restore whose payloads are neither in the backup nor in the blob store is refused; nothing is restored", async () => {
    const dir = join(scratch, "restore-no-blobs");
    const live = join(dir, "live");
    await dataWithBlobSession(live, "keeper", text(100_000, "R"));
    const to = join(dir, "copy.db");
    await quietly(() => runBackup({ data: live, to }));
    rmSync(`${to}.blobs`, { recursive: true, force: true }); // a backup copied without its folder
    const target = join(dir, "restored", "sessiontree.db");
    mkdirSync(dirname(target), { recursive: true });
    await assert.rejects(
      restoreSqlite(to, target, { blobs: `file:${join(dir, "restored", "blobs")}` }),
      (error: Error & { code?: string }) => error.code === "blob_not_found",
    );
    assert.ok(!existsSync(target), "the database is not put in place");
  });
});

// =============================================================================================
// Start-up against the database

describe("start-up (docs/server.md, Storage; Several instances on PostgreSQL)", () => {
  it("a port in use: exits non-zero at once, not after its database pool idles out", async () => {
    const pgc = await cluster();
    const database = await pgc.database();
    const holder: NetServer = createNetServer();
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
    const port = (holder.address() as { port: number }).port;
    try {
      const cli = startCli(["serve", "--port", String(port), "--database", database, "--no-access-log"]);
      let reported: number | undefined;
      cli.child.stderr?.on("data", () => {
        if (reported === undefined && /EADDRINUSE/.test(cli.stderr())) reported = performance.now();
      });
      const started = performance.now();
      // The test's guard: 30 s in all, 5 s once the error is printed.
      const guard = setInterval(() => {
        const now = performance.now();
        if (now - started > 30_000 || (reported !== undefined && now - reported > 5_000))
          cli.child.kill("SIGKILL");
      }, 100);
      const { code, signal } = await cli.exited;
      clearInterval(guard);
      assert.ok(reported !== undefined, `the error names the port in use: ${cli.stderr()}`);
      assert.equal(
        signal,
        null,
        "still running 5 s after printing the error: killed by the test (its database pool stayed open)",
      );
      assert.notEqual(code, 0);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  it("regression: two instances starting together on tables of an older server all start, each step applied once", async () => {
    const pgc = await cluster();
    const database = await pgc.database();
    const client = new pg.Client({ connectionString: database });
    await client.connect();
    try {
      for (const statement of [
        "CREATE TABLE sessiontree_server_migrations (version INTEGER PRIMARY KEY)",
        "INSERT INTO sessiontree_server_migrations (version) VALUES (1)",
        `CREATE TABLE api_keys (id TEXT PRIMARY KEY, user_id TEXT NOT NULL, name TEXT NOT NULL,
         key_hash TEXT NOT NULL, created_at TEXT NOT NULL, revoked_at TEXT)`,
        "CREATE INDEX api_keys_user ON api_keys (user_id)",
        `CREATE TABLE deletion_audit (seq BIGSERIAL PRIMARY KEY, owner TEXT NOT NULL, session_id TEXT NOT NULL,
         action TEXT NOT NULL, actor TEXT NOT NULL, via TEXT NOT NULL, at TEXT NOT NULL)`,
        "CREATE INDEX deletion_audit_owner ON deletion_audit (owner, seq)",
        `CREATE TABLE idempotency_keys (owner TEXT NOT NULL, key TEXT NOT NULL, request_hash TEXT NOT NULL,
         created_at TEXT NOT NULL, status INTEGER, body TEXT, content_type TEXT, etag TEXT,
         PRIMARY KEY (owner, key))`,
      ])
        await client.query(statement);
      const instances = [0, 1].map(() =>
        startCli(["serve", "--port", "0", "--database", database, "--no-access-log"]),
      );
      const started = await Promise.allSettled(instances.map((i) => i.listening));
      await sleep(500); // a SIGTERM right on the start line can beat the handler's installation
      const codes = await Promise.all(instances.map((i) => i.stop()));
      assert.deepEqual(
        started.map((s) => s.status),
        ["fulfilled", "fulfilled"],
        instances.map((i) => i.stderr()).join("\n"),
      );
      assert.deepEqual(
        codes.map((c) => c.code),
        [0, 0],
      );
      const { rows } = await client.query(
        "SELECT version FROM sessiontree_server_migrations ORDER BY version",
      );
      assert.deepEqual(
        rows.map((r) => Number(r.version)),
        [1, 2, 3],
      );
    } finally {
      await client.end();
    }
  });

  it("a database it cannot open or reach: exit 1, one line naming it (password hidden) and the driver's reason, no stack", async () => {
    const closed = createNetServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise((resolve) => closed.close(resolve)); // nothing listens there now
    const notADatabase = join(scratch, "not-a-database.db");
    writeFileSync(notADatabase, "this is not SQLite\n".repeat(100));
    const cases: Array<[string[], RegExp]> = [
      [
        ["--database", `postgres://app:hunter2-secret@127.0.0.1:${port}/st`],
        new RegExp(
          `Cannot open the postgres database at postgres://app:\\*\\*\\*\\*@127\\.0\\.0\\.1:${port}/st: .*ECONNREFUSED`,
        ),
      ],
      [
        ["--database", join(scratch, "no-such-folder", "st.db")],
        /Cannot open the sqlite database at .*no-such-folder.*: .*does not exist/,
      ],
      [
        ["--database", notADatabase],
        /Cannot open the sqlite database at .*not-a-database\.db: file is not a database/,
      ],
    ];
    for (const [args, says] of cases) {
      const outcome = await runCli(["serve", "--port", "0", "--no-access-log", ...args]);
      assert.equal(outcome.started, false);
      assert.equal(outcome.code, 1, outcome.stderr);
      assert.match(outcome.stderr, /^error \[io_error\] /);
      assert.match(outcome.stderr, says);
      assert.doesNotMatch(
        outcome.stderr,
        /hunter2-secret|\n\s+at /,
        `no password, no stack: ${outcome.stderr}`,
      );
    }
  });

  it("regression: a store schema newer than this binary is refused (schema_too_new, exit 1), and nothing is changed", async () => {
    const data = join(scratch, "too-new");
    await dataWithTrashedSession(data, "future");
    const file = join(data, "sessiontree.db");
    const db = new Database(file);
    db.prepare(
      "INSERT INTO sessiontree_migrations (version, name, applied_at) VALUES (99, 'future', 'then')",
    ).run();
    const before = JSON.stringify(db.prepare("SELECT * FROM sessiontree_migrations ORDER BY version").all());
    const serverBefore = JSON.stringify(
      db.prepare("SELECT * FROM sessiontree_server_migrations ORDER BY version").all(),
    );
    db.close();
    const outcome = await runCli(["serve", "--port", "0", "--data", data]);
    assert.equal(outcome.started, false);
    assert.equal(outcome.code, 1);
    assert.match(outcome.stderr, /schema_too_new/);
    const after = new Database(file, { readonly: true });
    try {
      assert.equal(
        JSON.stringify(after.prepare("SELECT * FROM sessiontree_migrations ORDER BY version").all()),
        before,
      );
      assert.equal(
        JSON.stringify(after.prepare("SELECT * FROM sessiontree_server_migrations ORDER BY version").all()),
        serverBefore,
      );
    } finally {
      after.close();
    }
  });
});

// =============================================================================================
// Readiness across PostgreSQL outages

describe("readiness follows PostgreSQL down, frozen and back (docs/server.md, Health, readiness)", () => {
  let server: SessionTreeServer;
  let url: string;
  let key: string;
  let pgc: Cluster;

  before(async () => {
    pgc = await cluster();
    const database = await pgc.database();
    server = await createServer({ port: 0, database, rateLimit: false, poolSize: 3, accessLog: () => {} });
    url = (await server.listen()).url;
    key = (await createApiKey(server.services.db, "ready", "t")).key;
    await sleep(300); // the maintenance run at start is over before the database goes away
  });
  after(async () => {
    pgc?.thaw();
    await server?.close().catch(() => {});
  });

  it("regression: 503 not_ready with Retry-After while stopped, 200 again after a restart, no server restart", async () => {
    assert.equal((await call(url, "GET", "/readyz")).status, 200);
    pgc.stop();
    try {
      const down = await call(url, "GET", "/readyz");
      assert.equal(down.status, 503);
      assert.equal(down.json.code, "not_ready");
      assert.equal(down.headers.get("retry-after"), "1");
      assert.equal((await call(url, "GET", "/healthz")).status, 200);
    } finally {
      pgc.start();
    }
    let ready = 0;
    for (let i = 0; i < 50 && ready !== 200; i++) {
      ready = (await call(url, "GET", "/readyz")).status;
      if (ready !== 200) await sleep(200);
    }
    assert.equal(ready, 200, "ready again once PostgreSQL is back");
    assert.equal((await call(url, "POST", "/v1/sessions", { key, body: { cwd: "/back" } })).status, 201);
    assert.equal((await call(url, "GET", "/v1/sessions", { key })).status, 200);
  });

  it("regression: a database that hangs is 503 within the 2 s probe, and ready again once it answers", async () => {
    pgc.freeze();
    let hung: Awaited<ReturnType<typeof call>>;
    const started = performance.now();
    try {
      hung = await call(url, "GET", "/readyz");
    } finally {
      pgc.thaw();
    }
    const took = performance.now() - started;
    assert.equal(hung.status, 503);
    assert.ok(took < 6_000, `answered after ${Math.round(took)} ms`);
    let ready = 0;
    for (let i = 0; i < 50 && ready !== 200; i++) {
      ready = (await call(url, "GET", "/readyz")).status;
      if (ready !== 200) await sleep(200);
    }
    assert.equal(ready, 200);
  });
});

// =============================================================================================
// Shutdown

describe("SIGTERM (docs/server.md, TLS, proxies and shutdown)", () => {
  it("regression: an export its client stops reading does not keep the process past --shutdown-grace; exit 0", async () => {
    const data = join(scratch, "term-export");
    const key = await keyFor({ data }, "exporter");
    const cli = startCli([
      "serve",
      "--port",
      "0",
      "--data",
      data,
      "--no-access-log",
      "--shutdown-grace",
      "1",
    ]);
    try {
      const url = await cli.listening;
      const id = await importSession(url, key, bigSessionJsonl(5000, 600));
      const target = new URL(`${url}/v1/sessions/${id}/export`);
      const socket = connect(Number(target.port), target.hostname);
      socket.on("error", () => {});
      let received = 0;
      socket.on("data", (chunk) => {
        received += chunk.length;
        socket.pause(); // reads one chunk, then stops reading
      });
      socket.write(`GET ${target.pathname} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n`);
      while (received === 0) await sleep(50);
      await sleep(300);
      const signalled = performance.now();
      cli.child.kill("SIGTERM");
      const { code } = await cli.exited;
      const took = performance.now() - signalled;
      socket.destroy();
      assert.equal(code, 0);
      assert.ok(took < 6_000, `exited ${Math.round(took)} ms after SIGTERM (grace 1 s)`);
    } finally {
      await cli.stop();
    }
  });
});
