import type { ToolCallContent } from "../core/messages.js";

export type PermissionDecision = "allow" | "deny" | "ask";

/**
 * One rule: a tool name pattern and, optionally, patterns on string arguments. `*` matches any
 * run of characters, `?` one character. All given argument patterns must match for the rule to apply.
 */
export interface PermissionRule {
  tool: string;
  args?: Record<string, string>;
  decision: PermissionDecision;
  /** Where the rule comes from (a settings file, a flag), named when it refuses a call. */
  source?: string;
  /** The rule as its author wrote it (`bash(git *)`), shown instead of its parts. */
  text?: string;
}

/** What the `ask` callback answers: a boolean, or "always" (allowed, and not asked again in this policy). */
export type AskAnswer = boolean | "always";

export interface PermissionPolicyOptions {
  /** Checked in order; the first rule that matches decides. */
  rules?: PermissionRule[];
  /** When no rule matches. @default "allow" */
  defaultDecision?: PermissionDecision;
  /**
   * Answers "ask" decisions (a UI prompt). Without it, "ask" is a refusal. "always" allows this
   * call and every later call of the same tool for the life of this policy object (one chat), never
   * beyond: nothing of it is written to the session.
   */
  ask?: (call: ToolCallContent, rule: PermissionRule | undefined) => Promise<AskAnswer>;
  /**
   * The arguments rules are matched against, when they are not the call's own: a chat maps a
   * `path` to one form relative to its working directory, so `./src/a.ts` cannot slip past `src/*`.
   */
  normalize?: (call: Pick<ToolCallContent, "name" | "arguments">) => Record<string, unknown>;
}

/** The outcome of one check, with the reason to show the model and the user when refused. */
export type PermissionResult =
  | { allowed: true }
  | { allowed: false; reason: string; rule: PermissionRule | undefined };

/**
 * Today's permissions, evaluated when a tool is called — never read from history. A session that
 * once ran `bash` gets no right to run it again from that fact.
 * @example new PermissionPolicy({ rules: [{ tool: "bash", args: { command: "rm *" }, decision: "deny" }] })
 */
export class PermissionPolicy {
  private readonly rules: readonly PermissionRule[];
  private readonly defaultDecision: PermissionDecision;
  private readonly options: PermissionPolicyOptions;
  /** Tools the user allowed "always" in this policy's life. */
  private readonly allowedAlways = new Set<string>();

  constructor(options: PermissionPolicyOptions = {}) {
    this.rules = Object.freeze([...(options.rules ?? [])]);
    this.defaultDecision = options.defaultDecision ?? "allow";
    this.options = options;
  }

  /** The rule that decides a call, undefined when the default does. */
  ruleFor(call: Pick<ToolCallContent, "name" | "arguments">): PermissionRule | undefined {
    const normalized = { name: call.name, arguments: this.options.normalize?.(call) ?? call.arguments };
    return this.rules.find((r) => ruleMatches(r, normalized));
  }

  /** The static decision for a call (no prompting). */
  decide(call: Pick<ToolCallContent, "name" | "arguments">): PermissionDecision {
    return this.ruleFor(call)?.decision ?? this.defaultDecision;
  }

  async check(call: ToolCallContent): Promise<PermissionResult> {
    const rule = this.ruleFor(call);
    const decision = rule?.decision ?? this.defaultDecision;
    if (decision === "allow") return { allowed: true };
    const by = rule ? `rule ${describeRule(rule)}` : "the default decision";
    if (decision === "deny")
      return { allowed: false, rule, reason: `Permission denied: ${call.name} is refused by ${by}` };
    if (this.allowedAlways.has(call.name)) return { allowed: true };
    const answer = this.options.ask ? await this.options.ask(call, rule) : false;
    if (answer === "always") this.allowedAlways.add(call.name);
    if (answer) return { allowed: true };
    const why = this.options.ask ? "the user said no" : "no one could be asked";
    return {
      allowed: false,
      rule,
      reason: `Permission denied: ${call.name} needs approval (asked by ${by}); ${why}`,
    };
  }
}

/** A rule as people write it: `bash(git *)` (from .sessiontree/settings.json). */
export function describeRule(rule: PermissionRule): string {
  const args = Object.entries(rule.args ?? {}).map(([k, v]) => `${k}=${v}`);
  const written = rule.text ?? `${rule.tool}${args.length ? `(${args.join(", ")})` : ""}`;
  const text = `${rule.decision} ${written}`;
  return rule.source ? `"${text}" from ${rule.source}` : `"${text}"`;
}

function ruleMatches(rule: PermissionRule, call: Pick<ToolCallContent, "name" | "arguments">): boolean {
  if (!globMatch(rule.tool, call.name)) return false;
  for (const [name, pattern] of Object.entries(rule.args ?? {})) {
    const value = call.arguments?.[name];
    const text = typeof value === "string" ? value : JSON.stringify(value ?? null);
    if (!globMatch(pattern, text)) return false;
  }
  return true;
}

export function globMatch(pattern: string, text: string): boolean {
  const source = pattern
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, "[\\s\\S]*")
    .replace(/\?/g, "[\\s\\S]");
  return new RegExp(`^${source}$`).test(text);
}
