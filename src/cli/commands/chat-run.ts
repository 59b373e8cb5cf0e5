import { AgentSession, codingTools, loadPermissionSettings, PermissionPolicy } from "../../agent/index.js";
import { NotFoundError, ValidationError } from "../../core/errors.js";
import { defaultRoot } from "../../file/paths.js";
import { SessionManager } from "../../session/session-manager.js";
import { ChatLoop } from "../chat/chat-loop.js";
import { compactionFor, contextWindowOf } from "../chat/context-window.js";
import { ChatEndpoints, DEFAULT_MODELS } from "../chat/endpoints.js";
import type { ChatInput } from "../chat/input.js";
import { askInTerminal, normalizeForRules } from "../chat/permission-prompt.js";
import { PipedInput } from "../chat/piped-input.js";
import { ChatRenderer } from "../chat/render.js";
import { TerminalInput } from "../chat/terminal-input.js";

export interface ChatOptions {
  resume?: string;
  continue?: boolean;
  provider?: string;
  model?: string;
  baseUrl?: string;
  root?: string;
  system?: string;
  /** Rule specs (`bash(git *)`) allowed / denied for this chat, above the settings files. */
  allow?: string[];
  deny?: string[];
  hideThinking?: boolean;
  /** Tokens; the model's known window when absent. */
  contextWindow?: string | number;
}

/** Where the chat reads and writes: the terminal, or streams in a test. */
export interface ChatIo {
  input: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (mode: boolean) => unknown };
  output: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  cwd: string;
}

const SYSTEM_PROMPT =
  "You are a coding assistant in a terminal chat, working in the user's current directory. Use the tools to look before you change anything; keep answers short.";

export async function runChat(
  options: ChatOptions,
  io: ChatIo = { input: process.stdin, output: process.stdout, cwd: process.cwd() },
): Promise<void> {
  const root = options.root ? options.root : defaultRoot();
  const { cwd } = io;
  const contextWindow = windowFlag(options.contextWindow);
  const manager = await openManager(options, root, cwd);
  const resumed =
    (options.resume !== undefined || options.continue === true) && manager.getEntries().length > 0;
  const endpoints = new ChatEndpoints(options, manager.buildSessionContext().model?.provider);
  // Today's rules, read now (before the terminal goes raw: a settings file that does not parse
  // ends the chat here): nothing a past chat allowed carries over.
  const settings = loadPermissionSettings({ userDir: root, cwd, allow: options.allow, deny: options.deny });
  const input: ChatInput = io.input.isTTY
    ? new TerminalInput(io.input, io.output)
    : new PipedInput(io.input, io.output);
  const renderer = new ChatRenderer(io.output, { hideThinking: options.hideThinking });
  // One policy for the chat, so an "always" answer lasts until the chat ends (a /fork included).
  const permissions = new PermissionPolicy({
    ...settings,
    ask: askInTerminal(input, (line) => renderer.line(line)),
    normalize: normalizeForRules(cwd),
  });
  const startModel = options.model ?? manager.buildSessionContext().model?.modelId ?? "";
  const openAgent = (session: SessionManager) =>
    AgentSession.open({
      session,
      providers: endpoints.providers,
      defaultModel: {
        provider: endpoints.chosen,
        modelId: options.model ?? DEFAULT_MODELS[endpoints.chosen] ?? "",
      },
      systemPrompt: options.system ?? SYSTEM_PROMPT,
      tools: codingTools(cwd),
      permissions,
      contextWindow: (model) => contextWindowOf(model.modelId, contextWindow),
      compaction: compactionFor(contextWindowOf(startModel, contextWindow)),
    });
  const loop = new ChatLoop(manager, {
    input,
    renderer,
    endpoints,
    permissions,
    openAgent,
    root,
    cwd,
    contextWindow,
  });
  let last = manager;
  try {
    last = await loop.run({ showTail: resumed });
  } finally {
    input.close();
  }
  renderer.line(`bye — resume with: sessiontree chat --resume ${last.getSessionId()}`);
  last.close();
}

function windowFlag(value: string | number | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1000)
    throw new ValidationError(
      "invalid_argument",
      `--context-window takes a number of tokens ≥ 1000, not ${value}`,
    );
  return n;
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
