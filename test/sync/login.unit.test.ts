import assert from "node:assert/strict";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { CliIO } from "../../src/cli/io.js";
import { main } from "../../src/cli/main.js";
import { SessionManager } from "../../src/session/session-manager.js";
import { loginFilePath } from "../../src/sync/credentials.js";
import { startTestServer, type TestServer } from "../server/helpers.js";
import { messageMaker } from "../support/messages.js";
import { filesById, tempDir } from "./helpers.js";

/** Runs the real program in this process with captured streams. */
async function run(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const io: CliIO = {
    out: (text) => {
      out += text;
    },
    err: (text) => {
      err += text;
    },
    stdoutIsTTY: false,
    stderrIsTTY: false,
    env,
    cwd: "/",
    columns: 100,
  };
  const code = await main(args, io);
  return { code, out, err };
}

describe("sessiontree login, sync, logout", () => {
  let server: TestServer;
  const dirs = tempDir("st-sync-login-");
  before(async () => {
    server = await startTestServer("sqlite");
  });
  after(async () => {
    await server.close();
    dirs.cleanup();
  });

  it("saves the key 0600 in the config folder, sync uses it, logout forgets it", async () => {
    const config = join(dirs.path, "config");
    const root = join(dirs.path, "root");
    const key = await server.key("carol");
    const env = {
      SESSIONTREE_CONFIG_DIR: config,
      SESSIONTREE_CACHE_DIR: join(dirs.path, "cache"),
      MY_KEY: key,
    };
    const refused = await run(["login", "--server", server.url, "--key-env", "MY_KEY"], {
      ...env,
      MY_KEY: "st_000000000000_wrong",
    });
    assert.equal(refused.code, 1, "a key the service refuses is not saved");
    const login = await run(["login", "--server", `${server.url}/`, "--key-env", "MY_KEY"], env);
    assert.equal(login.code, 0, login.err);
    const path = loginFilePath(env);
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.equal(statSync(config).mode & 0o777, 0o700);
    const saved = JSON.parse(readFileSync(path, "utf8"));
    assert.equal(saved.default, server.url);
    assert.equal(saved.servers[server.url].key, key);

    const manager = SessionManager.create("/work/login", undefined, { root });
    manager.appendMessage(messageMaker().user("hello"));
    manager.close();
    const { MY_KEY: _unused, ...withoutKey } = env;
    const sync = await run(["--root", root, "sync", "--json"], withoutKey);
    assert.equal(sync.code, 0, sync.err + sync.out);
    assert.equal(JSON.parse(sync.out).pushed, 1);
    assert.equal(filesById(root).size, 1);

    const out = await run(["logout"], withoutKey);
    assert.equal(out.code, 0);
    const again = await run(["--root", root, "sync"], withoutKey);
    assert.equal(again.code, 2, "no service known any more: a usage error");
  });
});
