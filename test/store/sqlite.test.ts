import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after } from "node:test";
import { SqliteStore } from "../../src/store/sqlite/index.js";
import { runConformance } from "./conformance/index.js";

const dir = mkdtempSync(join(tmpdir(), "sessiontree-sqlite-"));
after(() => rmSync(dir, { recursive: true, force: true }));

runConformance({
  name: "sqlite",
  create: async () => new SqliteStore({ path: join(dir, "sessions.db") }),
  capabilities: { persistent: true },
});
