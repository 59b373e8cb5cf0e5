import { type AgentSession, THINKING_LEVELS } from "../../agent/index.js";
import { ValidationError } from "../../core/errors.js";
import { SessionManager } from "../../session/session-manager.js";
import type { ChatEndpoints } from "./endpoints.js";
import { resolveEntry, treeLines } from "./tree-lines.js";

/** One line per command, as /help prints them. */
export const COMMANDS: ReadonlyArray<readonly [string, string]> = [
  ["/help", "this list"],
  ["/tree", "the session tree; * marks where you are (the leaf)"],
  ["/checkout ID", "move to an entry of /tree (id or unique prefix); the next prompt continues from it"],
  ["/rewind ID", "the same as /checkout"],
  ["/branch ID", "go back to an entry, with a summary of the branch you leave"],
  ["/label ID TEXT", "label an entry (no text clears it)"],
  ["/name TEXT", "name the session"],
  ["/model PROVIDER/MODEL", "switch model (openai/gpt-4o-mini, anthropic/claude-sonnet-4-5, scripted/…)"],
  ["/thinking [LEVEL]", "set the thinking level; without one, list the levels"],
  ["/compact [FOCUS]", "summarize older turns now (it also happens by itself near the context window)"],
  ["/fork", "continue in a new session file holding this one's path"],
  ["/session", "the session's id and file"],
  ["/quit", "leave (Ctrl-C twice, or Ctrl-D, at an empty prompt too)"],
];

export const HELP = [
  ...COMMANDS.map(([name, what]) => `${name.padEnd(24)}${what}`),
  "Ctrl-C stops a reply or a running tool. Keys typed during a reply wait for the next prompt.",
].join("\n");

export interface CommandContext {
  manager: SessionManager;
  agent: AgentSession;
  endpoints: ChatEndpoints;
  out: (line?: string) => void;
  /** Asks the user a yes/no question on the chat's input. */
  confirm: (question: string) => Promise<boolean>;
  root: string;
  cwd: string;
}

/** Runs a slash command. Returns a new manager when the command switched sessions (/fork). */
export async function runCommand(text: string, ctx: CommandContext): Promise<SessionManager | undefined> {
  const [name = "", ...rest] = text.split(/\s+/);
  const arg = rest.join(" ");
  const { manager, agent, out } = ctx;
  switch (name) {
    case "/help":
      out(HELP);
      return undefined;
    case "/tree":
      for (const line of treeLines(manager.getTree(), manager.getLeafId())) out(line);
      out(`* = you are here (${manager.getLeafId() ?? "empty"}); /checkout ID moves there`);
      return undefined;
    case "/session":
      out(`session ${manager.getSessionId()} ${manager.getSessionFile() ?? "(in memory)"}`);
      return undefined;
    case "/checkout":
    case "/rewind":
      await agent.navigate(resolveEntry(manager, rest[0]));
      out(`leaf → ${manager.getLeafId()}`);
      return undefined;
    case "/branch":
      await agent.navigate(resolveEntry(manager, rest[0]), { summarize: true });
      out(`branched at ${rest[0]}; left branch summarized as ${manager.getLeafId()}`);
      return undefined;
    case "/label": {
      const target = resolveEntry(manager, rest[0]);
      manager.appendLabelChange(target, rest.slice(1).join(" ") || undefined);
      out(`label on ${target}: ${rest.slice(1).join(" ") || "(cleared)"}`);
      return undefined;
    }
    case "/name":
      manager.appendSessionInfo(arg);
      out(`name: ${arg}`);
      return undefined;
    case "/model":
      await switchModel(arg, ctx);
      return undefined;
    case "/thinking":
      if (!arg) {
        const current = agent.getThinkingLevel();
        out(`thinking levels: ${THINKING_LEVELS.map((l) => (l === current ? `[${l}]` : l)).join(" ")}`);
        out("set one with /thinking LEVEL");
        return undefined;
      }
      await agent.setThinkingLevel(arg);
      out(`thinking ${agent.getThinkingLevel()}`);
      return undefined;
    case "/compact": {
      const id = await agent.compact({ customInstructions: arg || undefined });
      out(id ? `compacted: ${id}` : "nothing to compact");
      return undefined;
    }
    case "/fork": {
      const file = manager.getSessionFile();
      if (!file)
        throw new ValidationError("invalid_argument", "This session has no file yet: say something first");
      manager.close();
      return SessionManager.forkFrom(file, ctx.cwd, undefined, { root: ctx.root });
    }
    default:
      throw new ValidationError("invalid_argument", `Unknown command ${name}: /help lists them`);
  }
}

/**
 * `/model PROVIDER/MODEL`. A switch that would carry the conversation away from the chat's
 * `--base-url` (to a public endpoint) says where it would send and goes ahead only on a yes.
 */
async function switchModel(arg: string, ctx: CommandContext): Promise<void> {
  const [provider, ...model] = arg.split("/");
  if (!provider || model.length === 0)
    throw new ValidationError("invalid_argument", "Usage: /model PROVIDER/MODEL");
  const leaving = ctx.endpoints.leavingBaseUrl(provider);
  if (leaving) {
    ctx.out(leaving);
    if (!(await ctx.confirm(`Send to ${ctx.endpoints.endpointOf(provider)}?`))) {
      const { provider: kept, modelId } = ctx.agent.getModel();
      ctx.out(`model unchanged: ${kept}/${modelId} at ${ctx.endpoints.endpointOf(kept)}`);
      return;
    }
  }
  await ctx.agent.setModel(provider, model.join("/"));
  ctx.out(`model ${provider}/${model.join("/")} at ${ctx.endpoints.endpointOf(provider)}`);
}
