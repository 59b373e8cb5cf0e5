// Opens a session file larger than Node's 512 MB string limit, to show the reader streams.
//   npx tsx scripts/large-file.ts [sizeMB=600]
// Writes a temp file of tool-result-heavy entries, opens it with SessionManager, prints the figures,
// and removes the file.
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SessionManager } from "../src/session/session-manager.js";

const targetBytes = Number(process.argv[2] ?? 600) * 1024 * 1024;
const dir = mkdtempSync(join(tmpdir(), "sessiontree-large-"));
const path = join(dir, "large.jsonl");
const fd = openSync(path, "w");
const header = {
  type: "session",
  version: 3,
  id: "large",
  timestamp: new Date().toISOString(),
  cwd: "/large",
};
writeSync(fd, `${JSON.stringify(header)}\n`);
const output = "x".repeat(64 * 1024);
let written = 0;
let parentId: string | null = null;
for (let i = 0; written < targetBytes; i++) {
  const id = i.toString(16).padStart(8, "0");
  const message = {
    role: "toolResult",
    toolCallId: `c${i}`,
    toolName: "bash",
    content: [{ type: "text", text: output }],
    isError: false,
    timestamp: i,
  };
  const line = `${JSON.stringify({ type: "message", id, parentId, timestamp: new Date(i).toISOString(), message })}\n`;
  written += writeSync(fd, line);
  parentId = id;
}
closeSync(fd);
const size = statSync(path).size;
const started = performance.now();
const session = SessionManager.open(path);
const context = session.buildSessionContext();
const seconds = (performance.now() - started) / 1000;
console.log(
  `file ${(size / 2 ** 20).toFixed(0)} MiB, ${session.getEntries().length} entries, ${context.messages.length} context messages`,
);
console.log(
  `open + context ${seconds.toFixed(1)} s, rss ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB, issues ${session.getIssues().length}`,
);
rmSync(dir, { recursive: true, force: true });
