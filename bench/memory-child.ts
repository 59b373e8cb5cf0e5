/**
 * Opens one session one way and prints this process's peak resident memory, so that each figure
 * comes from a fresh process and no measurement inherits another's heap. Only the implementation
 * under test is imported (pi's package alone loads a large dependency tree).
 * Usage: memory-child.ts <pi|full|cold|warm|baseline> <file>
 */
import { rmSync } from "node:fs";
import { dirname } from "node:path";

const [mode, file] = process.argv.slice(2) as [string, string];

async function open(): Promise<unknown> {
  if (mode === "pi") {
    const { SessionManager } = await import("@mariozechner/pi-coding-agent");
    return SessionManager.open(file, dirname(file)).buildSessionContext();
  }
  if (mode === "full") {
    const { SessionFile } = await import("../src/file/session-file.js");
    const { projectContext } = await import("../src/core/context.js");
    return projectContext(SessionFile.open(file).tree.getBranch());
  }
  if (mode === "cold" || mode === "warm") {
    const { indexPathFor } = await import("../src/file/sidecar-index.js");
    const { SessionManager } = await import("../src/session/session-manager.js");
    if (mode === "cold") rmSync(indexPathFor(file), { force: true });
    return SessionManager.open(file, dirname(file)).buildSessionContext();
  }
  if (mode === "baseline-pi") return import("@mariozechner/pi-coding-agent");
  if (mode === "baseline") return import("../src/session/session-manager.js");
  throw new Error(`unknown mode ${mode}`);
}

const kept = await open();
const maxRssKiB = process.resourceUsage().maxRSS;
process.stdout.write(`${JSON.stringify({ maxRssKiB, kept: kept !== undefined })}\n`);
