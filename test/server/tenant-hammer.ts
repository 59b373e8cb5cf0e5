// User A of the tenant-stall test and bench (`hammerChild` in tenant-load.ts), in a process of its
// own so that receiving A's large answers never delays the measurement of B's small ones: loops
// GET <path> with <workers> connections until SIGTERM, then prints A's answers by status (JSON).
//   tsx test/server/tenant-hammer.ts <url> <key> <path> <workers>
import { hammer } from "./tenant-load.js";

const [url, key, path, workers] = process.argv.slice(2);
if (!url || !key || !path) throw new Error("usage: tenant-hammer.ts <url> <key> <path> <workers>");
const a = hammer(url, key, path, Number(workers ?? 4));
process.once("SIGTERM", async () => {
  process.stdout.write(`${JSON.stringify(await a.stop())}\n`);
  process.exit(0);
});
process.stdout.write("ready\n");
