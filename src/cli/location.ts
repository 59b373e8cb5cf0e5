import { resolve } from "node:path";
import { defaultPiAgentDir, defaultRoot, detectLayout, type Layout, sessionsDir } from "../file/paths.js";
import { sessionFilesIn, sessionFoldersIn } from "../session/locate.js";
import { UsageError } from "./exit.js";
import type { CliIO } from "./io.js";

/** The options every command accepts (commander's global options). */
export interface GlobalOptions {
  root?: string;
  /** `--pi` alone: pi's agent directory; `--pi DIR`: that directory. */
  pi?: string | boolean;
  json?: boolean;
}

/** Where sessions are read and written: our root or a pi agent directory. */
export interface Location {
  root: string;
  layout: Layout;
}

export function locationFrom(options: GlobalOptions, io: CliIO): Location {
  if (options.pi && options.root) throw new UsageError("Give either --root or --pi, not both");
  let root: string;
  if (typeof options.pi === "string") root = resolve(io.cwd, options.pi);
  else if (options.pi === true) root = defaultPiAgentDir(io.env);
  else if (options.root) root = resolve(io.cwd, options.root);
  else root = defaultRoot(io.env);
  return { root, layout: options.pi ? "pi" : detectLayout(root) };
}

/** Every `.jsonl` file in every session folder of the location, sorted by path. */
export function allSessionFiles(location: Location): string[] {
  return sessionFoldersIn(sessionsDir(location.root))
    .flatMap((dir) => sessionFilesIn(dir))
    .sort();
}

/** The session id a file name carries (`<ts>_<id>.jsonl`), or undefined for other names. */
export function idFromFileName(path: string): string | undefined {
  const name = path.slice(Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\")) + 1);
  const underscore = name.indexOf("_");
  if (underscore < 0 || !name.endsWith(".jsonl")) return undefined;
  return name.slice(underscore + 1, -".jsonl".length);
}
