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
}

export interface PermissionPolicyOptions {
  /** Checked in order; the first rule that matches decides. */
  rules?: PermissionRule[];
  /** When no rule matches. @default "allow" */
  defaultDecision?: PermissionDecision;
  /** Answers "ask" decisions (a UI prompt). Without it, "ask" is a refusal. */
  ask?: (call: ToolCallContent) => Promise<boolean>;
}

/** The outcome of one check, with the reason to show the model and the user when refused. */
export type PermissionResult = { allowed: true } | { allowed: false; reason: string };

/**
 * Today's permissions, evaluated when a tool is called — never read from history. A session that
 * once ran `bash` gets no right to run it again from that fact.
 * @example new PermissionPolicy({ rules: [{ tool: "bash", args: { command: "rm *" }, decision: "deny" }] })
 */
export class PermissionPolicy {
  private readonly rules: readonly PermissionRule[];
  private readonly defaultDecision: PermissionDecision;
  private readonly ask: PermissionPolicyOptions["ask"];

  constructor(options: PermissionPolicyOptions = {}) {
    this.rules = Object.freeze([...(options.rules ?? [])]);
    this.defaultDecision = options.defaultDecision ?? "allow";
    this.ask = options.ask;
  }

  /** The static decision for a call (no prompting). */
  decide(call: Pick<ToolCallContent, "name" | "arguments">): PermissionDecision {
    const rule = this.rules.find((r) => ruleMatches(r, call));
    return rule ? rule.decision : this.defaultDecision;
  }

  async check(call: ToolCallContent): Promise<PermissionResult> {
    const decision = this.decide(call);
    if (decision === "allow") return { allowed: true };
    if (decision === "deny")
      return {
        allowed: false,
        reason: `Permission denied: ${call.name} is not allowed by the current policy`,
      };
    if (this.ask && (await this.ask(call))) return { allowed: true };
    return { allowed: false, reason: `Permission denied: ${call.name} needs approval, which was not given` };
  }
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
