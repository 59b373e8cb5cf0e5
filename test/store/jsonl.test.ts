import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after } from "node:test";
import { JsonlStore } from "../../src/store/jsonl/jsonl-store.js";
import { runConformance } from "./conformance/index.js";

const root = mkdtempSync(join(tmpdir(), "sessiontree-jsonl-"));
after(() => rmSync(root, { recursive: true, force: true }));

runConformance({
  name: "jsonl",
  create: async () => new JsonlStore({ root }),
  capabilities: { persistent: true },
});
