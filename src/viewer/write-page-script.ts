/**
 * `npm run build`'s last step: writes the viewer's page script beside the compiled page-script.js,
 * where `pageScript()` looks for it, so the published package never runs esbuild.
 *
 *   tsx src/viewer/write-page-script.ts dist/viewer
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { bundlePageScript, PREBUILT_NAME } from "./page-script.js";

const dir = process.argv[2];
if (!dir) {
  process.stderr.write(
    "usage: tsx src/viewer/write-page-script.ts <folder of the compiled page-script.js>\n",
  );
  process.exit(2);
}
const file = join(dir, PREBUILT_NAME);
const script = bundlePageScript();
writeFileSync(file, script);
process.stdout.write(`${file}: ${(Buffer.byteLength(script) / 1024).toFixed(1)} KiB\n`);
