import pc from "picocolors";
import { estimateContextTokens } from "../../agent/compaction/tokens.js";
import type { AgentEvent, AgentSession, PermissionPolicy } from "../../agent/index.js";
import type { UsageTally } from "../../format/stats-usage.js";
import type { SessionManager } from "../../session/session-manager.js";
import { runCommand } from "./commands.js";
import { contextWindowOf } from "./context-window.js";
import type { ChatEndpoints } from "./endpoints.js";
import { type ChatInput, confirm } from "./input.js";
import type { ChatRenderer } from "./render.js";
import { resumeView } from "./resume-view.js";
import { assistantMessages, statusLine, tallyOf } from "./status.js";

export interface ChatParts {
  input: ChatInput;
  renderer: ChatRenderer;
  endpoints: ChatEndpoints;
  permissions: PermissionPolicy;
  /** Opens the agent on a session (again after /fork). */
  openAgent: (manager: SessionManager) => Promise<AgentSession>;
  root: string;
  cwd: string;
  /** --context-window, if given. */
  contextWindow: number | undefined;
}

/** The chat's read–run loop over one session at a time (a /fork moves it to another). */
export class ChatLoop {
  private agent!: AgentSession;
  private detach: () => void = () => undefined;
  private readonly out: (line?: string) => void;

  constructor(
    private manager: SessionManager,
    private readonly parts: ChatParts,
  ) {
    this.out = (line = "") => parts.renderer.line(line);
  }

  /** Opens the agent, shows where the session stands, and converses until the user quits. */
  async run(options: { showTail: boolean }): Promise<SessionManager> {
    await this.attach(this.manager);
    await this.parts.endpoints.align(this.agent);
    this.banner();
    if (options.showTail) for (const line of resumeView(this.manager.getBranch())) this.out(line);
    for (let line = await this.parts.input.read("> "); line !== undefined; ) {
      const text = line.trim();
      if (text === "/quit" || text === "/exit") break;
      try {
        await this.handle(text);
      } catch (error) {
        const code = (error as { code?: string }).code ?? "error";
        this.out(pc.red(`[${code}] ${error instanceof Error ? error.message : String(error)}`));
      }
      line = await this.parts.input.read("> ");
    }
    this.detach();
    return this.manager;
  }

  private async handle(text: string): Promise<void> {
    if (text.startsWith("/")) {
      const { endpoints, input, root, cwd } = this.parts;
      const ask = (question: string) => confirm(input, question);
      const context = {
        manager: this.manager,
        agent: this.agent,
        endpoints,
        out: this.out,
        confirm: ask,
        root,
        cwd,
      };
      const switched = await runCommand(text, context);
      if (switched) {
        await this.attach(switched);
        this.banner();
      }
    } else if (text) {
      const turn = await this.prompt(text);
      this.out(await this.status(turn));
    }
  }

  private async attach(manager: SessionManager): Promise<void> {
    this.detach();
    this.manager = manager;
    this.agent = await this.parts.openAgent(manager);
    this.detach = this.agent.subscribe(this.parts.renderer.onEvent);
  }

  /** One prompt's run; Ctrl-C (on a terminal) aborts it, the running tool included. Returns its usage. */
  private async prompt(text: string): Promise<UsageTally> {
    const controller = new AbortController();
    this.parts.input.busy(() => controller.abort());
    const replies: unknown[] = [];
    const stop = this.agent.subscribe((event: AgentEvent) => {
      if (event.type === "message_end" && event.message.role === "assistant") replies.push(event.message);
    });
    try {
      await this.agent.prompt(text, { signal: controller.signal });
    } finally {
      stop();
      this.parts.input.idle();
    }
    return tallyOf(replies);
  }

  /** This turn's usage, the whole session's (every branch), how full the context is. */
  private async status(turn: UsageTally): Promise<string> {
    const tokens = estimateContextTokens((await this.agent.context()).messages);
    const window = contextWindowOf(this.agent.getModel().modelId, this.parts.contextWindow);
    return statusLine(turn, tallyOf(assistantMessages(this.manager.getEntries())), { tokens, window });
  }

  private banner(): void {
    const { manager, agent, out } = this;
    const { provider, modelId } = agent.getModel();
    const label =
      provider === "scripted" ? pc.yellow(" (scripted model: offline, replies are scripted, not AI)") : "";
    const where = provider === "scripted" ? "" : ` · ${this.parts.endpoints.endpointOf(provider)}`;
    const name = manager.getSessionName();
    out(`session ${manager.getSessionId()}${name ? ` "${name}"` : ""}`);
    out(
      `model ${provider}/${modelId}${label}${where} · thinking ${agent.getThinkingLevel()} · /help for commands`,
    );
    const by = { allow: [] as string[], ask: [] as string[], deny: [] as string[] };
    for (const tool of ["read", "ls", "grep", "find", "write", "edit", "bash"])
      by[this.parts.permissions.decide({ name: tool, arguments: {} })].push(tool);
    const parts = Object.entries(by).flatMap(([decision, tools]) =>
      tools.length ? [`${decision}: ${tools.join(" ")}`] : [],
    );
    out(pc.dim(`tools — ${parts.join(" · ")}`));
  }
}
