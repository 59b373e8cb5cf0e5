import { createInterface } from "node:readline";
import pc from "picocolors";
import {
  AgentSession,
  AnthropicProvider,
  OpenAiProvider,
  PermissionPolicy,
  type Provider,
  readOnlyFsTools,
  ScriptedProvider,
} from "../../agent/index.js";
import type { SessionEntry } from "../../core/entry.js";
import { NotFoundError, ValidationError } from "../../core/errors.js";
import { messageText } from "../../core/messages.js";
import type { SessionTreeNode } from "../../core/tree.js";
import { defaultRoot } from "../../file/paths.js";
import { SessionManager } from "../../session/session-manager.js";

export interface ChatOptions {
  resume?: string;
  continue?: boolean;
  provider?: string;
  model?: string;
  baseUrl?: string;
  root?: string;
  system?: string;
}

const DEFAULT_MODELS: Record<string, string> = {
  scripted: "scripted-1",
  openai: "gpt-4o-mini",
  anthropic: "claude-sonnet-4-5",
};
const HELP = `/tree  /rewind ID  /branch ID  /label ID TEXT  /name TEXT  /model PROVIDER/MODEL
/thinking LEVEL  /compact  /fork  /session  /help  /quit   (Ctrl-C stops a reply)`;

export async function runChat(options: ChatOptions): Promise<void> {
  const root = options.root ? options.root : defaultRoot();
  const cwd = process.cwd();
  let manager = await openManager(options, root, cwd);
  const providers = buildProviders(options);
  const first = providers[0] as Provider;
  const open = () =>
    AgentSession.open({
      session: manager,
      providers,
      defaultModel: { provider: first.name, modelId: options.model ?? DEFAULT_MODELS[first.name] ?? "" },
      systemPrompt: options.system ?? "You are a helpful assistant in a terminal chat.",
      tools: readOnlyFsTools(cwd),
      permissions: new PermissionPolicy({ defaultDecision: "allow" }),
    });
  let agent = await open();
  await alignModel(agent, options, providers);
  const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: process.stdin.isTTY });
  const out = (line = "") => process.stdout.write(`${line}\n`);
  let controller: AbortController | undefined;
  rl.on("SIGINT", () => (controller ? controller.abort() : rl.close()));
  const attach = () =>
    agent.subscribe((event) => {
      if (event.type === "message_update")
        process.stdout.write(event.delta.kind === "text" ? event.delta.text : pc.dim(event.delta.text));
      else if (event.type === "tool_call_start")
        out(pc.cyan(`\n[tool] ${event.call.name} ${JSON.stringify(event.call.arguments)}`));
      else if (event.type === "tool_call_end")
        out(
          pc.dim(
            `[result${event.result.isError ? " error" : ""}] ${messageText(event.result).slice(0, 200)}`,
          ),
        );
      else if (event.type === "turn_end") out();
      else if (event.type === "error") out(pc.red(`[error] ${event.message}`));
      else if (event.type === "abort") out(pc.yellow("[aborted]"));
    });
  attach();
  banner(out, manager, agent);
  rl.setPrompt("> ");
  rl.prompt();
  for await (const line of rl) {
    const text = line.trim();
    try {
      if (text === "/quit" || text === "/exit") break;
      if (text.startsWith("/")) {
        const switched = await command(text, { manager, agent, out, root, cwd });
        if (switched) {
          manager = switched;
          agent = await open();
          attach();
          banner(out, manager, agent);
        }
      } else if (text) {
        controller = new AbortController();
        await agent.prompt(text, { signal: controller.signal });
      }
    } catch (error) {
      out(
        pc.red(
          `[${(error as { code?: string }).code ?? "error"}] ${error instanceof Error ? error.message : String(error)}`,
        ),
      );
    } finally {
      controller = undefined;
    }
    rl.prompt();
  }
  out(`bye — resume with: sessiontree chat --resume ${manager.getSessionId()}`);
  manager.close();
  rl.close();
}

interface CommandContext {
  manager: SessionManager;
  agent: AgentSession;
  out: (line?: string) => void;
  root: string;
  cwd: string;
}

/** Runs a slash command. Returns a new manager when the command switched sessions (/fork). */
async function command(text: string, ctx: CommandContext): Promise<SessionManager | undefined> {
  const [name = "", ...rest] = text.split(/\s+/);
  const arg = rest.join(" ");
  const { manager, agent, out } = ctx;
  switch (name) {
    case "/help":
      out(HELP);
      return undefined;
    case "/tree":
      for (const line of treeLines(manager.getTree(), manager.getLeafId())) out(line);
      return undefined;
    case "/session":
      out(`session ${manager.getSessionId()} ${manager.getSessionFile() ?? "(in memory)"}`);
      return undefined;
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
    case "/model": {
      const [provider, ...model] = arg.split("/");
      if (!provider || model.length === 0)
        throw new ValidationError("invalid_argument", "Usage: /model PROVIDER/MODEL");
      await agent.setModel(provider, model.join("/"));
      out(`model ${provider}/${model.join("/")}`);
      return undefined;
    }
    case "/thinking":
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
      throw new ValidationError("invalid_argument", `Unknown command ${name}. ${HELP}`);
  }
}

async function openManager(options: ChatOptions, root: string, cwd: string): Promise<SessionManager> {
  if (options.resume) {
    const all = await SessionManager.listAll(undefined, { root });
    const matches = all.filter((s) => s.id === options.resume || s.id.startsWith(options.resume as string));
    if (matches.length !== 1) {
      const why = matches.length === 0 ? "No session" : `${matches.length} sessions match`;
      throw new NotFoundError("session_not_found", `${why} "${options.resume}" under ${root}`);
    }
    return SessionManager.open((matches[0] as { path: string }).path, undefined, undefined, { root });
  }
  if (options.continue) return SessionManager.continueRecent(cwd, undefined, { root });
  return SessionManager.create(cwd, undefined, { root });
}

function buildProviders(options: ChatOptions): Provider[] {
  const name =
    options.provider ??
    (process.env.OPENAI_API_KEY ? "openai" : process.env.ANTHROPIC_API_KEY ? "anthropic" : "scripted");
  const all: Provider[] = [
    new ScriptedProvider(),
    new OpenAiProvider({ baseUrl: name === "openai" ? options.baseUrl : undefined }),
    new AnthropicProvider({ baseUrl: name === "anthropic" ? options.baseUrl : undefined }),
  ];
  const chosen = all.find((p) => p.name === name);
  if (!chosen)
    throw new ValidationError(
      "invalid_argument",
      `Unknown provider ${name}: use scripted, openai or anthropic`,
    );
  return [chosen, ...all.filter((p) => p !== chosen)];
}

function banner(out: (line?: string) => void, manager: SessionManager, agent: AgentSession): void {
  const { provider, modelId } = agent.getModel();
  const label =
    provider === "scripted" ? pc.yellow(" (scripted model: offline, replies are scripted, not AI)") : "";
  out(`session ${manager.getSessionId()}${manager.getSessionName() ? ` "${manager.getSessionName()}"` : ""}`);
  out(`model ${provider}/${modelId}${label} · thinking ${agent.getThinkingLevel()} · /help for commands`);
}

/** An entry id from a full id or a unique prefix. */
function resolveEntry(manager: SessionManager, ref: string | undefined): string {
  if (!ref) throw new ValidationError("invalid_argument", "Give an entry id (see /tree)");
  if (manager.getEntry(ref)) return ref;
  const matches = manager.getEntries().filter((e) => e.id.startsWith(ref));
  if (matches.length === 1) return (matches[0] as SessionEntry).id;
  throw new NotFoundError("entry_not_found", matches.length ? `"${ref}" is ambiguous` : `No entry ${ref}`);
}

/** The tree, one entry a line; indentation grows only where the tree branches. `*` marks the leaf. */
function treeLines(roots: readonly SessionTreeNode[], leafId: string | null): string[] {
  const lines: string[] = [];
  const stack = [...roots].reverse().map((node) => ({ node, depth: 0 }));
  while (stack.length > 0) {
    const { node, depth } = stack.pop() as { node: SessionTreeNode; depth: number };
    const marker = node.entry.id === leafId ? "*" : " ";
    const label = node.label ? pc.green(` [${node.label}]`) : "";
    lines.push(`${marker} ${"  ".repeat(depth)}${node.entry.id}${label} ${describe(node.entry)}`);
    const childDepth = node.children.length > 1 ? depth + 1 : depth;
    for (const child of [...node.children].reverse()) stack.push({ node: child, depth: childDepth });
  }
  return lines;
}

function describe(entry: SessionEntry): string {
  if (entry.type === "message") {
    const m = entry.message as { role: string; content?: unknown; stopReason?: string };
    const text = messageText(m).replace(/\s+/g, " ").slice(0, 60);
    return `${m.role}${m.stopReason === "aborted" || m.stopReason === "error" ? ` (${m.stopReason})` : ""}: ${text}`;
  }
  if (entry.type === "compaction" || entry.type === "branch_summary")
    return `${entry.type}: ${entry.summary.replace(/\s+/g, " ").slice(0, 50)}`;
  if (entry.type === "model_change") return `model → ${entry.provider}/${entry.modelId}`;
  if (entry.type === "thinking_level_change") return `thinking → ${entry.thinkingLevel}`;
  return entry.type;
}

/**
 * An explicit --provider/--model wins over the resumed session's model, and a session whose model
 * belongs to a provider that is not configured today switches to one that is (history grants nothing).
 */
async function alignModel(agent: AgentSession, options: ChatOptions, providers: Provider[]): Promise<void> {
  const current = agent.getModel();
  const first = providers[0] as Provider;
  const configured = providers.some((p) => p.name === current.provider);
  if (!options.provider && !options.model && configured) return;
  const provider =
    options.provider && providers.some((p) => p.name === options.provider) ? options.provider : first.name;
  const modelId = options.model ?? DEFAULT_MODELS[provider] ?? current.modelId;
  if (provider === current.provider && modelId === current.modelId) return;
  await agent.setModel(provider, modelId);
}
