import { existsSync, readdirSync } from "node:fs";
import { homedir } from "node:os";
import { basename, join, resolve } from "node:path";

/**
 * Where sessions live on disk, and how a working directory becomes a folder name.
 *
 * sessiontree's own layout: `<root>/sessions/<encoded cwd>/<ts>_<id>.jsonl`, root `~/.sessiontree`
 * (env `SESSIONTREE_ROOT`). pi's layout is the same shape with pi's cwd encoding, which collides
 * (`/a/b-c` and `/a-b/c` both become `--a-b-c--`, pi #4877); ours is injective, and we still read
 * pi's folders, checking each file's header cwd so a collision never mixes two projects.
 */
export type Layout = "sessiontree" | "pi";

export function defaultRoot(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(env.SESSIONTREE_ROOT || join(homedir(), ".sessiontree"));
}

/** pi's agent directory (`PI_CODING_AGENT_DIR` or `~/.pi/agent`). */
export function defaultPiAgentDir(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(
    env.PI_CODING_AGENT_DIR ? expandHome(env.PI_CODING_AGENT_DIR) : join(homedir(), ".pi", "agent"),
  );
}

/** A leading `~` as the home folder, as pi reads PI_CODING_AGENT_DIR (a shell leaves it in quotes). */
export function expandHome(path: string): string {
  if (path === "~") return homedir();
  if (path.startsWith("~/")) return homedir() + path.slice(1);
  return path;
}

export function sessionsDir(root: string): string {
  return join(root, "sessions");
}

/**
 * Our cwd encoding: letters, digits, `.` and `_` stay; `/` and `\` become `-`; every other byte is
 * `%XX` (so a `-` in a name becomes `%2D`). Injective, readable, and safe on every file system.
 */
export function encodeCwd(cwd: string): string {
  const trimmed = cwd.replace(/^[/\\]/, "");
  let out = "";
  for (const byte of Buffer.from(trimmed, "utf8")) {
    const ch = String.fromCharCode(byte);
    if (/[A-Za-z0-9._]/.test(ch)) out += ch;
    else if (ch === "/" || ch === "\\") out += "-";
    else out += `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out === "" ? "%2F" : out;
}

/** pi's cwd encoding, for reading and writing pi's folders. */
export function encodeCwdPi(cwd: string): string {
  return `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`;
}

/** `<ts>_<id>.jsonl`, `<ts>` the header timestamp with `:` and `.` replaced by `-`, as pi names files. */
export function sessionFileName(timestamp: string, sessionId: string): string {
  return `${timestamp.replace(/[:.]/g, "-")}_${sessionId}.jsonl`;
}

/** The folder new sessions of `cwd` go to under `root`. */
export function sessionDirFor(root: string, cwd: string, layout: Layout = detectLayout(root)): string {
  return join(sessionsDir(root), layout === "pi" ? encodeCwdPi(cwd) : encodeCwd(cwd));
}

/** Every folder under `root` that may hold sessions of `cwd`: ours and pi's (filter by header cwd). */
export function candidateDirsFor(root: string, cwd: string): string[] {
  const dirs = [join(sessionsDir(root), encodeCwd(cwd)), join(sessionsDir(root), encodeCwdPi(cwd))];
  return dirs.filter((dir, i) => dirs.indexOf(dir) === i);
}

/**
 * A root is a pi agent directory when pi's files are there (`settings.json`, `auth.json`, or a
 * sessions folder in pi's `--…--` naming): new sessions then use pi's folder names so pi finds them.
 */
export function detectLayout(root: string): Layout {
  if (existsSync(join(root, "settings.json")) || existsSync(join(root, "auth.json"))) return "pi";
  const dir = sessionsDir(root);
  if (!existsSync(dir))
    return basename(root) === "agent" && basename(resolve(root, "..")) === ".pi" ? "pi" : "sessiontree";
  const names = readdirSync(dir);
  const piNamed = names.filter((n) => n.startsWith("--") && n.endsWith("--")).length;
  return piNamed > 0 && piNamed === names.length ? "pi" : "sessiontree";
}
