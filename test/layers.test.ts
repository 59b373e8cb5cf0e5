import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { after, describe, test } from "node:test";
import { checkLayers, layerTable } from "../scripts/check-layers.mjs";

describe("the layer check (scripts/check-layers.mjs)", () => {
  test("every import in src/ points down the layer table", () => {
    const problems = checkLayers("src");
    assert.deepEqual(problems, [], `imports against the layers:\n${problems.join("\n")}`);
  });

  // A small tree with one import of each kind the check must refuse, and some it must allow, so a
  // check that silently passes everything fails here.
  const root = mkdtempSync(join(tmpdir(), "sessiontree-layers-"));
  after(() => rmSync(root, { recursive: true, force: true }));
  const files: Record<string, string> = {
    "core/ids.ts": 'import { randomUUID } from "node:crypto";\nimport { v7 } from "uuid";',
    "core/tree.ts": 'import type { Entry } from "./entry.js";',
    "format/decode.ts": 'import { createHash } from "node:crypto";\nimport { x } from "../core/tree.js";',
    "store/store.ts": 'export { y } from "../session/manager.js";',
    "session/manager.ts":
      'import {\n  a,\n  b,\n} from "../file/read.js";\nconst s = "import x from \'../cli/main.js\'";',
    "agent/loop.ts": 'const server = await import("../server/app.js");',
    "server/app.ts": 'import "../viewer/page.js";',
    "client/client.ts":
      'import type * as S from "../server/schemas.js";\nimport { app } from "../server/app.js";',
    "cli/main.ts": 'import { app } from "../server/app.js";\nimport { c } from "../client/client.js";',
    "extra/thing.ts": "export const z = 1;",
    "index.ts": 'export * from "./agent/loop.js";',
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }

  test("it names each import against the layers, and only those", () => {
    const shown = relative(".", root).split("\\").join("/");
    assert.deepEqual(
      checkLayers(root).map((line) => line.replace(`${shown}/`, "")),
      [
        "agent/loop.ts: imports ../server/app.js (layer agent may not import layer server)",
        "client/client.ts: imports ../server/app.js (layer client may import only server/schemas.ts of layer server)",
        "core/ids.ts: imports node:crypto (layer core may not import node: built-ins)",
        "extra/thing.ts: is in no layer (add its folder to LAYERS in scripts/check-layers.mjs)",
        "index.ts: imports ./agent/loop.js (layer index may not import layer agent)",
        "server/app.ts: imports ../viewer/page.js (layer server may not import layer viewer)",
        "store/store.ts: imports ../session/manager.js (layer store may not import layer session)",
      ],
    );
  });

  test("the table prints lowest last, with core refusing node: built-ins", () => {
    const lines = layerTable().split("\n");
    assert.match(lines.at(-1) ?? "", /^\| 0 \| core\/ \| nothing; no node: built-ins \|/);
  });
});
