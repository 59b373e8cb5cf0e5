import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { CliCall, CliResult } from "./run-main.js";

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const FIXTURES = resolve(REPO, "../shared/fixtures/pi");
export const BIN = join(REPO, "bin/sessiontree.js");

/** A throwaway folder with a sessions root in it; `cleanup` removes it. */
export function tempWorkspace(): { dir: string; root: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "sessiontree-cli-"));
  return { dir, root: join(dir, "root"), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Copies a read-only fixture into `dir` (writable) and returns the copy's path. */
export function copyFixture(name: string, dir: string): string {
  const target = join(dir, name);
  copyFileSync(join(FIXTURES, name), target);
  return target;
}

/** The environment a test's CLI sees: only what it names, plus PATH and HOME pointing into the workspace. */
export function cliEnv(dir: string, extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? "", HOME: dir, SESSIONTREE_ROOT: join(dir, "root"), ...extra };
}

export interface Call {
  args: string[];
  cwd?: string;
  env?: Record<string, string>;
  tty?: boolean;
}

/**
 * Runs calls in order in one child process (`main(argv)` per call, real files) and returns their
 * exit codes and output.
 */
export function runScenario(dir: string, calls: Call[]): CliResult[] {
  const full: CliCall[] = calls.map((c) => ({
    args: c.args,
    cwd: c.cwd ?? dir,
    env: c.env ?? cliEnv(dir),
    tty: c.tty,
  }));
  const file = join(dir, `calls-${Date.now()}-${Math.random().toString(16).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(full));
  const child = spawnSync(process.execPath, ["--import", "tsx", join(REPO, "test/cli/run-main.ts"), file], {
    cwd: REPO,
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
  });
  rmSync(file, { force: true });
  if (child.status !== 0) throw new Error(`CLI runner failed (${child.status}): ${child.stderr}`);
  return JSON.parse(child.stdout) as CliResult[];
}

/** Runs the real `sessiontree` launcher as a user would. */
export function runBin(args: string[], options: { cwd: string; env: Record<string, string> }): CliResult {
  const child = spawnSync(process.execPath, [BIN, ...args], {
    cwd: options.cwd,
    env: { ...options.env, SESSIONTREE_FROM_SOURCE: "1" },
    encoding: "utf8",
  });
  return { code: child.status ?? -1, stdout: child.stdout, stderr: child.stderr };
}

export function readJsonl(path: string): Array<Record<string, unknown>> {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** True when the text holds ANSI colour codes. */
export function hasAnsi(text: string): boolean {
  return text.includes("\u001b[");
}
