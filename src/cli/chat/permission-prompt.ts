import pc from "picocolors";
import { PATH_ARGUMENTS } from "../../agent/coding/index.js";
import { relativeToRoot } from "../../agent/coding/paths.js";
import { type AskAnswer, describeRule, type PermissionRule } from "../../agent/index.js";
import type { ToolCallContent } from "../../core/messages.js";
import type { ChatInput } from "./input.js";
import { describeCall } from "./render.js";

/**
 * The chat's answer to an `ask` rule: the call, what it would change, and one key — y (this call),
 * a (every call of this tool until the chat ends; never written anywhere), n or anything else (no).
 */
export function askInTerminal(
  input: ChatInput,
  out: (line?: string) => void,
): (call: ToolCallContent, rule: PermissionRule | undefined) => Promise<AskAnswer> {
  return async (call, rule) => {
    out(pc.yellow(`? ${describeCall(call)}   (${rule ? describeRule(rule) : "asked by default"})`));
    for (const line of preview(call)) out(line);
    const key = await input.choose(
      `  allow ${call.name}? [y] once  [a] always this session  [n] no › `,
      ["y", "a", "n"],
      "n",
    );
    return key === "a" ? "always" : key === "y";
  };
}

/** A few lines of what a write or an edit would put in the file. */
function preview(call: ToolCallContent): string[] {
  const args = call.arguments ?? {};
  const lines = (text: unknown, mark: string, paint: (s: string) => string) =>
    String(text ?? "")
      .split("\n")
      .slice(0, 6)
      .map((l) => paint(`    ${mark} ${l}`));
  if (call.name === "edit")
    return [...lines(args.oldText, "-", pc.red), ...lines(args.newText, "+", pc.green)];
  if (call.name === "write") return lines(args.content, "+", pc.green);
  return [];
}

/** Path arguments of the file tools in one form relative to `cwd`, for rules like `write(src/*)`. */
export function normalizeForRules(cwd: string) {
  return (call: Pick<ToolCallContent, "name" | "arguments">): Record<string, unknown> => {
    const args = { ...(call.arguments ?? {}) };
    for (const name of PATH_ARGUMENTS[call.name] ?? [])
      if (typeof args[name] === "string") args[name] = relativeToRoot(cwd, args[name] as string);
      else if (
        args[name] === undefined &&
        (call.name === "ls" || call.name === "grep" || call.name === "find")
      )
        args[name] = ".";
    return args;
  };
}
