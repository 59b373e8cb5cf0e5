import { writeFileSync } from "node:fs";
import { join } from "node:path";

/** The same bytes in two files of folder `dir`, one for each reader (ours, pi's). */
export function twoCopies(dir: string, text: string | Buffer): { ours: string; pi: string } {
  const files = { ours: join(dir, "ours.jsonl"), pi: join(dir, "pi.jsonl") };
  writeFileSync(files.ours, text);
  writeFileSync(files.pi, text);
  return files;
}
