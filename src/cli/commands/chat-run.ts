import { createInterface } from "node:readline";
import pc from "picocolors";
import { type AgentEvent, AgentSession, PermissionPolicy, readOnlyFsTools } from "../../agent/index.js";
import { NotFoundError } from "../../core/errors.js";
import { messageText } from "../../core/messages.js";
import { defaultRoot } from "../../file/paths.js";
import { SessionManager } from "../../session/session-manager.js";
import { runCommand } from "../chat/commands.js";
import { RetryCountdown } from "../chat/countdown.js";
import { ChatEndpoints, DEFAULT_MODELS } from "../chat/endpoints.js";
import { LineReader } from "../chat/line-reader.js";

export interface ChatOptions {
  resume?: string;
  continue?: boolean;
  provider?: string;
  model?: string;
  baseUrl?: string;
  root?: string;
  system?: string;
}

/** Where the chat reads and writes: the terminal, or streams in a test. */
export interface ChatIo {
  input: NodeJS.ReadableStream & { isTTY?: boolean };
  output: NodeJS.WritableStream & { isTTY?: boolean };
  cwd: string;
}

export async function runChat(
  options: ChatOptions,
  io: ChatIo = { input: process.stdin, output: process.stdout, cwd: process.cwd() },
): Promise<void> {
  const root = options.root ? options.root : defaultRoot();
  const { cwd } = io;
  let manager = await openManager(options, root, cwd);
  const endpoints = new ChatEndpoints(options, manager.buildSessionContext().model?.provider);
  const open = () =>
    AgentSession.open({
      session: manager,
      providers: endpoints.providers,
      defaultModel: {
        provider: endpoints.chosen,
        modelId: options.model ?? DEFAULT_MODELS[endpoints.chosen] ?? "",
      },
      systemPrompt: options.system ?? "You are a helpful assistant in a terminal chat.",
      tools: readOnlyFsTools(cwd),
      permissions: new PermissionPolicy({ defaultDecision: "allow" }),
    });
  let agent = await open();
  await endpoints.align(agent);
  const rl = createInterface({ input: io.input, output: io.output, terminal: io.input.isTTY === true });
  const lines = new LineReader(rl);
  const out = (line = "") => io.output.write(`${line}\n`);
  let controller: AbortController | undefined;
  rl.on("SIGINT", () => (controller ? controller.abort() : rl.close()));
  const countdown = new RetryCountdown(io.output, out);
  const attach = () =>
    agent.subscribe((event) => {
      countdown.stop();
      if (event.type === "retry") countdown.start(event);
      else render(event, io.output, out);
    });
  attach();
  banner(out, manager, agent, endpoints);
  rl.setPrompt("> ");
  rl.prompt();
  for (let line = await lines.next(); line !== undefined; line = await lines.next()) {
    const text = line.trim();
    try {
      if (text === "/quit" || text === "/exit") break;
      if (text.startsWith("/")) {
        const confirm = (question: string) => lines.confirm(question);
        const switched = await runCommand(text, { manager, agent, endpoints, out, confirm, root, cwd });
        if (switched) {
          manager = switched;
          agent = await open();
          attach();
          banner(out, manager, agent, endpoints);
        }
      } else if (text) {
        controller = new AbortController();
        await agent.prompt(text, { signal: controller.signal });
      }
    } catch (error) {
      const code = (error as { code?: string }).code ?? "error";
      out(pc.red(`[${code}] ${error instanceof Error ? error.message : String(error)}`));
    } finally {
      controller = undefined;
    }
    rl.prompt();
  }
  out(`bye — resume with: sessiontree chat --resume ${manager.getSessionId()}`);
  manager.close();
  rl.close();
}

function render(event: AgentEvent, output: NodeJS.WritableStream, out: (line?: string) => void): void {
  if (event.type === "message_update")
    output.write(event.delta.kind === "text" ? event.delta.text : pc.dim(event.delta.text));
  else if (event.type === "tool_call_start")
    out(pc.cyan(`\n[tool] ${event.call.name} ${JSON.stringify(event.call.arguments)}`));
  else if (event.type === "tool_call_end")
    out(pc.dim(`[result${event.result.isError ? " error" : ""}] ${messageText(event.result).slice(0, 200)}`));
  else if (event.type === "turn_end") out();
  else if (event.type === "error") out(pc.red(`[error] ${event.message}`));
  else if (event.type === "abort") out(pc.yellow("[aborted]"));
  else if (event.type === "prompt_rewound")
    out(pc.yellow(`[the failed prompt stays in /tree as ${event.userEntryId} but is out of the context]`));
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

function banner(
  out: (line?: string) => void,
  manager: SessionManager,
  agent: AgentSession,
  endpoints: ChatEndpoints,
): void {
  const { provider, modelId } = agent.getModel();
  const label =
    provider === "scripted" ? pc.yellow(" (scripted model: offline, replies are scripted, not AI)") : "";
  const where = provider === "scripted" ? "" : ` · ${endpoints.endpointOf(provider)}`;
  out(`session ${manager.getSessionId()}${manager.getSessionName() ? ` "${manager.getSessionName()}"` : ""}`);
  out(
    `model ${provider}/${modelId}${label}${where} · thinking ${agent.getThinkingLevel()} · /help for commands`,
  );
}
