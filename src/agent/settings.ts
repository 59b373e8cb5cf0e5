import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ValidationError } from "../core/errors.js";
import { PRIMARY_ARGUMENT } from "./coding/index.js";
import type { PermissionDecision, PermissionRule } from "./permissions.js";

/**
 * Permission settings as people write them, in `settings.json` under the sessions root (by default
 * `~/.sessiontree/settings.json`) and in a project's `.sessiontree/settings.json`:
 *
 *   { "permissions": { "allow": ["read", "bash(git status*)"], "ask": ["write(src/*)"],
 *                      "deny": ["bash(rm *)"], "default": "ask",
 *                      "rules": [{ "tool": "deploy", "args": { "target": "prod*" }, "decision": "ask" }] } }
 *
 * `tool(glob)` matches the tool's main argument (bash: command; the file tools: path, relative to
 * the working directory). Within one file: `rules` in order, then deny, ask, allow.
 */
export interface PermissionSettings {
  rules: PermissionRule[];
  defaultDecision?: PermissionDecision;
}

const DECISIONS: readonly PermissionDecision[] = ["deny", "ask", "allow"];

/** What a chat does with no settings at all: look freely, ask before changing anything. */
export const BUILT_IN_RULES: readonly PermissionRule[] = Object.freeze(
  ["read", "ls", "grep", "find"].map((tool) => ({ tool, decision: "allow" as const, source: "built-in" })),
);

/** A rule from `tool` or `tool(glob)` (or `tool(arg=glob)` for a tool with no main argument). */
export function parseRuleSpec(spec: string, decision: PermissionDecision, source: string): PermissionRule {
  const match = /^([^()\s]+)(?:\((.*)\))?$/s.exec(spec.trim());
  if (!match)
    throw new ValidationError("invalid_argument", `${source}: "${spec}" is not a rule (tool or tool(glob))`);
  const tool = match[1] as string;
  const pattern = match[2];
  const text = spec.trim();
  if (pattern === undefined) return { tool, decision, source, text };
  const primary = PRIMARY_ARGUMENT[tool];
  if (primary) return { tool, args: { [primary]: pattern }, decision, source, text };
  const named = /^(\w+)=(.*)$/s.exec(pattern);
  if (!named)
    throw new ValidationError(
      "invalid_argument",
      `${source}: "${spec}": ${tool} has no main argument; write ${tool}(argument=glob)`,
    );
  return { tool, args: { [named[1] as string]: named[2] as string }, decision, source, text };
}

/** The permission part of one settings document. */
export function parsePermissionSettings(json: unknown, source: string): PermissionSettings {
  const bad = (why: string) => new ValidationError("invalid_argument", `${source}: ${why}`);
  if (typeof json !== "object" || json === null || Array.isArray(json)) throw bad("not a JSON object");
  const permissions = (json as { permissions?: unknown }).permissions;
  if (permissions === undefined) return { rules: [] };
  if (typeof permissions !== "object" || permissions === null) throw bad('"permissions" is not an object');
  const p = permissions as Record<string, unknown>;
  const rules: PermissionRule[] = [];
  for (const rule of asArray(p.rules, "rules", bad)) rules.push(explicitRule(rule, source, bad));
  for (const decision of DECISIONS)
    for (const spec of asArray(p[decision], decision, bad)) {
      if (typeof spec !== "string") throw bad(`"${decision}" holds a non-string`);
      rules.push(parseRuleSpec(spec, decision, source));
    }
  if (p.default !== undefined && !DECISIONS.includes(p.default as PermissionDecision))
    throw bad('"default" is not allow, ask or deny');
  return { rules, defaultDecision: p.default as PermissionDecision | undefined };
}

function asArray(value: unknown, name: string, bad: (why: string) => Error): unknown[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw bad(`"${name}" is not an array`);
  return value;
}

function explicitRule(value: unknown, source: string, bad: (why: string) => Error): PermissionRule {
  const r = value as Partial<PermissionRule>;
  const argsOk =
    r.args === undefined ||
    (typeof r.args === "object" &&
      r.args !== null &&
      Object.values(r.args).every((v) => typeof v === "string"));
  if (typeof r?.tool !== "string" || !DECISIONS.includes(r.decision as PermissionDecision) || !argsOk)
    throw bad(`a rule needs { "tool": string, "args"?: { name: glob }, "decision": allow|ask|deny }`);
  return { tool: r.tool, args: r.args, decision: r.decision as PermissionDecision, source };
}

/** One settings file; none there is no settings. A file that does not parse is an error, never skipped. */
export function readSettingsFile(path: string): PermissionSettings {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { rules: [] };
    throw error;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ValidationError("invalid_argument", `${path}: not JSON (${(error as Error).message})`);
  }
  return parsePermissionSettings(json, path);
}

export interface PermissionSources {
  /** The user's folder: `<dir>/settings.json` (the sessions root, ~/.sessiontree by default). */
  userDir: string;
  /** The working directory: `<cwd>/.sessiontree/settings.json`. */
  cwd: string;
  /** `--allow` / `--deny` rule specs, above every file. */
  allow?: readonly string[];
  deny?: readonly string[];
}

/**
 * Today's rules, first match wins: the flags (deny before allow), the project's file, the user's
 * file, the built-in rules (read-only tools allowed); then the project's, else the user's
 * `default`, else ask.
 */
export function loadPermissionSettings(sources: PermissionSources): PermissionSettings {
  const project = readSettingsFile(join(sources.cwd, ".sessiontree", "settings.json"));
  const user = readSettingsFile(join(sources.userDir, "settings.json"));
  const flags = [
    ...(sources.deny ?? []).map((s) => parseRuleSpec(s, "deny", "--deny")),
    ...(sources.allow ?? []).map((s) => parseRuleSpec(s, "allow", "--allow")),
  ];
  return {
    rules: [...flags, ...project.rules, ...user.rules, ...BUILT_IN_RULES],
    defaultDecision: project.defaultDecision ?? user.defaultDecision ?? "ask",
  };
}
