import type { ProjectedContext } from "../core/context.js";
import type { EntryDraft, SessionEntry } from "../core/entry.js";
import { NotFoundError, ValidationError } from "../core/errors.js";
import type {
  AppendableMessage,
  AssistantMessage,
  ImageContent,
  TextContent,
  UserMessage,
} from "../core/messages.js";
import type { SessionManagerLike } from "../session/session-manager-like.js";
import type { SessionBackend } from "./backend/backend.js";
import { SessionManagerBackend } from "./backend/session-manager-backend.js";
import { compactionDraft, leavingMessages } from "./compaction/compact.js";
import { isContextOverflow } from "./compaction/overflow.js";
import {
  type CompactionSettings,
  DEFAULT_COMPACTION_SETTINGS,
  prepareCompaction,
} from "./compaction/prepare.js";
import { serializeConversation, summarize } from "./compaction/summarize.js";
import { estimateContextTokens } from "./compaction/tokens.js";
import type { AgentEvent, AgentListener, CompactionReason } from "./events.js";
import { runLoop } from "./loop.js";
import type { PermissionPolicy } from "./permissions.js";
import { type Provider, THINKING_LEVELS, type ThinkingLevel } from "./provider.js";
import { interruptedReply, interruptedResults } from "./resume.js";
import type { RetryPolicy } from "./retry.js";
import type { AgentTool } from "./tools.js";
import { WriteQueue } from "./write-queue.js";

export interface AgentSessionOptions {
  /** Where the session lives: a SessionManager (pi's or sessiontree's) or a backend (e.g. StoreBackend). */
  session: SessionBackend | SessionManagerLike;
  /** Providers by name; the session's model names which one answers. The first is the default. */
  providers: readonly Provider[];
  /** Model when the session has none yet (or names a provider not configured today). */
  defaultModel?: { provider: string; modelId: string };
  systemPrompt?: string;
  /** Today's tools. History never adds one. */
  tools?: readonly AgentTool[];
  /** Today's permissions, checked at every tool call. */
  permissions?: PermissionPolicy;
  /**
   * Compact automatically before a prompt when the context nears this many tokens; a function gets
   * the current model (a chat that switches models), undefined: no automatic compaction.
   */
  contextWindow?: number | ((model: { provider: string; modelId: string }) => number | undefined);
  compaction?: Partial<CompactionSettings>;
  maxTurns?: number;
  /**
   * On open, complete a turn a crash cut short: missing tool results and a missing reply are
   * appended as interrupted/aborted, so the file shows what happened. @default true
   */
  repairInterruptedTurn?: boolean;
  /** Retries of a model call that failed with 429, 5xx, 529 or a dropped connection. @default DEFAULT_RETRY_POLICY */
  retry?: Partial<RetryPolicy> | false;
  /**
   * A prompt whose run failed (after its retries) before any reply: `"rewind"` moves the leaf back
   * to where the prompt started, so the prompt and its error stay in the tree, on a side branch,
   * and are not sent again with the next prompt; `"keep"` leaves them on the path. @default "rewind"
   */
  failedPrompt?: "rewind" | "keep";
}

export interface PromptOptions {
  signal?: AbortSignal;
  images?: ImageContent[];
}

/**
 * An agent bound to a session. Every user, assistant (also aborted or failed) and tool result
 * message is appended on `message_end`, in order, through one queue, under the branch that was
 * current when the prompt started. Deltas, progress and listeners are never written.
 *
 * @example
 * const agent = await AgentSession.open({ session: SessionManager.inMemory(), providers: [new ScriptedProvider()] });
 * agent.subscribe((e) => e.type === "message_update" && process.stdout.write(e.delta.text));
 * await agent.prompt("hello");
 */
export class AgentSession {
  readonly backend: SessionBackend;
  private readonly options: Readonly<AgentSessionOptions>;
  private readonly queue = new WriteQueue();
  private readonly listeners = new Set<AgentListener>();
  private model: { provider: string; modelId: string };
  private thinkingLevel: ThinkingLevel = "off";
  private extensionState: Record<string, unknown> = {};
  private running: { anchor: string | null } | undefined;
  /** A run is past its check but not yet `running` (the automatic compaction): one run at a time. */
  private starting = false;

  private constructor(options: AgentSessionOptions) {
    if (options.providers.length === 0)
      throw new ValidationError("invalid_argument", "AgentSession needs at least one provider");
    this.options = Object.freeze({ ...options });
    this.backend = isBackend(options.session) ? options.session : new SessionManagerBackend(options.session);
    const first = options.providers[0] as Provider;
    this.model = options.defaultModel ?? {
      provider: first.name,
      modelId: first.name === "scripted" ? "scripted-1" : "",
    };
  }

  /**
   * Opens (or resumes) an agent on a session: the path to the current leaf gives model, thinking
   * level and extension state; a turn cut short by a crash gets its missing tool results, marked
   * as interrupted, so the history is complete and the next request is valid.
   */
  static async open(options: AgentSessionOptions): Promise<AgentSession> {
    const agent = new AgentSession(options);
    await agent.restore();
    return agent;
  }

  private async restore(): Promise<void> {
    this.adopt(await this.backend.context());
    if (this.options.repairInterruptedTurn === false) return;
    // Only a tip can be a turn a crash cut short; a leaf with children is a deliberate rewind.
    const leaf = this.backend.leafId();
    if (leaf !== null && this.backend.hasChildren(leaf)) return;
    const path = await this.backend.path();
    const missing: AppendableMessage[] = interruptedResults(path);
    const provider = this.providerFor(this.model.provider, false);
    const reply = interruptedReply(path, this.model, provider?.api ?? "unknown");
    if (reply) missing.push(reply);
    let anchor = leaf;
    for (const message of missing) {
      const draft = { type: "message", message } as const;
      anchor = (await this.queue.run(() => this.backend.appendUnder(anchor, draft))).id;
    }
  }

  subscribe(listener: AgentListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  getModel(): { provider: string; modelId: string } {
    return { ...this.model };
  }

  getThinkingLevel(): ThinkingLevel {
    return this.thinkingLevel;
  }

  /** Latest `custom` entry data by type on the current path, as of open or the last write. */
  getExtensionState(): Readonly<Record<string, unknown>> {
    return this.extensionState;
  }

  isRunning(): boolean {
    return this.running !== undefined;
  }

  /** The projection of the current leaf (or of the running turn's branch), the caller's to change. */
  async context(): Promise<ProjectedContext> {
    const kept = await this.keptContext();
    return {
      ...kept,
      messages: [...kept.messages],
      extensionState: { ...kept.extensionState },
      messageEntryIds: [...kept.messageEntryIds],
      warnings: [...kept.warnings],
    };
  }

  /** `context()` as the backend keeps it between writes, shared with every model call: never changed. */
  private async keptContext(): Promise<ProjectedContext> {
    await this.queue.drain();
    return this.backend.context(this.running ? this.running.anchor : undefined);
  }

  async setModel(provider: string, modelId: string): Promise<void> {
    this.providerFor(provider, true);
    this.model = { provider, modelId };
    await this.write({ type: "model_change", provider, modelId });
  }

  async setThinkingLevel(level: string): Promise<void> {
    this.thinkingLevel = asThinkingLevel(level, true);
    await this.write({ type: "thinking_level_change", thinkingLevel: this.thinkingLevel });
  }

  /** Extension state: a `custom` entry (never sent to the model). */
  async setExtensionState(customType: string, data: unknown): Promise<void> {
    this.extensionState = { ...this.extensionState, [customType]: data };
    await this.write({ type: "custom", customType, data });
  }

  /** Sends a prompt and runs the agent until it stops. Returns the last assistant message. */
  async prompt(text: string, options: PromptOptions = {}): Promise<AssistantMessage | undefined> {
    const content: (TextContent | ImageContent)[] = [{ type: "text", text }, ...(options.images ?? [])];
    return this.run({ role: "user", content, timestamp: Date.now() }, options.signal);
  }

  /** Runs the agent on the current context without a new user message (after tool results, say). */
  async continue(signal?: AbortSignal): Promise<AssistantMessage | undefined> {
    return this.run(undefined, signal);
  }

  private async run(
    prompt: UserMessage | undefined,
    signal?: AbortSignal,
  ): Promise<AssistantMessage | undefined> {
    if (this.running || this.starting)
      throw new ValidationError("invalid_argument", "The agent is already running");
    this.starting = true;
    try {
      await this.maybeAutoCompact(signal);
    } finally {
      this.starting = false;
    }
    const { outcome, start, end } = await this.runTurns(prompt, signal);
    if (outcome && isContextOverflow(outcome) && !signal?.aborted) {
      const retried = await this.retryAfterOverflow(signal);
      if (retried) return retried.outcome;
    }
    if (prompt && outcome?.stopReason === "error") await this.rewindFailedPrompt(start, end);
    return outcome;
  }

  /** The loop from the current leaf (and `prompt`); `start` and `end`: the leaf before and after. */
  private async runTurns(prompt: UserMessage | undefined, signal?: AbortSignal) {
    const start = this.backend.leafId();
    this.running = { anchor: start };
    let outcome: AssistantMessage | undefined;
    let end: string | null = null;
    try {
      const provider = this.providerFor(this.model.provider, true);
      const config = {
        provider,
        model: this.model.modelId,
        systemPrompt: this.options.systemPrompt ?? "",
        thinkingLevel: this.thinkingLevel,
        tools: this.options.tools ?? [],
        permissions: this.options.permissions,
        maxTurns: this.options.maxTurns,
        retry: this.options.retry,
      };
      const hooks = {
        context: async () => (await this.keptContext()).messages,
        emit: (e: AgentEvent) => this.onEvent(e),
      };
      outcome = await runLoop(config, hooks, prompt, signal);
    } finally {
      await this.queue.drain();
      end = this.running?.anchor ?? null;
      this.running = undefined;
    }
    return { outcome, start, end };
  }

  /**
   * The provider refused the context as over the model's window, though the estimate let the
   * prompt go: with automatic compaction on (`contextWindow`), compacts and runs once more from the
   * compacted context, as pi does. Null when it does not apply, there is nothing to compact or the
   * compaction failed: the provider's error stands.
   */
  private async retryAfterOverflow(signal?: AbortSignal) {
    this.starting = true;
    let entryId: string | undefined;
    try {
      const tokens = estimateContextTokens((await this.keptContext()).messages);
      entryId = await this.compactAutomatically("overflow", tokens, signal);
    } finally {
      this.starting = false;
    }
    return entryId === undefined ? null : this.runTurns(undefined, signal);
  }

  /**
   * After a prompt's run failed with no reply at all (the path from `start` holds only the prompt
   * and its error), moves the leaf back to `start`, unless the user moved it meanwhile.
   */
  private async rewindFailedPrompt(start: string | null, end: string | null): Promise<void> {
    if (this.options.failedPrompt === "keep" || end === null || this.backend.leafId() !== end) return;
    const path = await this.backend.path(end);
    const from = start === null ? 0 : path.findIndex((e) => e.id === start) + 1;
    const run = path.slice(from);
    const roles = run.map((e) => (e.type === "message" ? e.message.role : e.type));
    if (roles.length !== 2 || roles[0] !== "user" || roles[1] !== "assistant") return;
    await this.queue.run(() => this.backend.moveLeaf(start));
    const userEntryId = (run[0] as SessionEntry).id;
    await this.onEvent({ type: "prompt_rewound", userEntryId, leafId: start });
  }

  private async onEvent(event: AgentEvent): Promise<void> {
    if (event.type === "message_end") await this.write({ type: "message", message: event.message });
    for (const listener of this.listeners) {
      try {
        await listener(event);
      } catch {
        // A UI listener's failure must not break persistence or the run; it is the listener's bug.
      }
    }
  }

  /** Appends through the queue, on the running turn's branch when a run is in progress. */
  private async write(draft: EntryDraft): Promise<string> {
    return this.queue.run(async () => {
      const parent = this.running ? this.running.anchor : this.backend.leafId();
      const { id } = await this.backend.appendUnder(parent, draft);
      if (this.running) this.running.anchor = id;
      return id;
    });
  }

  /**
   * Compacts the current path: the provider summarizes everything before the cut (and what the
   * previous compaction kept), the newest ~keepRecentTokens stay verbatim. Returns the entry id,
   * or undefined when there is nothing to compact.
   */
  async compact(
    options: { customInstructions?: string; signal?: AbortSignal; keepRecentTokens?: number } = {},
  ) {
    if (this.running)
      throw new ValidationError("invalid_argument", "Cannot compact while the agent is running");
    await this.queue.drain();
    const settings = {
      ...this.compactionSettings(),
      ...pickDefined({ keepRecentTokens: options.keepRecentTokens }),
    };
    const draft = await compactionDraft(await this.backend.path(), settings, {
      provider: this.providerFor(this.model.provider, true),
      model: this.model.modelId,
      customInstructions: options.customInstructions,
      signal: options.signal,
    });
    return draft ? this.write(draft) : undefined;
  }

  /**
   * Moves to another point of the tree. With `summarize`, the provider summarizes the branch being
   * left (from the common ancestor down to the current leaf) into a `branch_summary` at the target.
   */
  async navigate(targetId: string | null, options: { summarize?: boolean; signal?: AbortSignal } = {}) {
    if (this.running)
      throw new ValidationError("invalid_argument", "Cannot move the leaf while the agent is running");
    await this.queue.drain();
    if (targetId !== null && !this.backend.getEntry(targetId)) {
      throw new NotFoundError("entry_not_found", `Entry ${targetId} not found`, {
        details: { id: targetId },
      });
    }
    const leaving = leavingMessages(await this.backend.path(), await this.backend.path(targetId));
    // Nothing a model could read (say, only a failed reply) gets no summary request and no entry.
    if (options.summarize && serializeConversation(leaving)) {
      const provider = this.providerFor(this.model.provider, true);
      const summary = await summarize(leaving, "branch", {
        provider,
        model: this.model.modelId,
        signal: options.signal,
      });
      await this.queue.run(() => this.backend.branchWithSummary(targetId, summary));
    } else {
      await this.queue.run(() => this.backend.moveLeaf(targetId));
    }
    this.adopt(await this.backend.context());
  }

  /** Takes model, thinking level and extension state from a projection of the current path. */
  private adopt(context: ProjectedContext): void {
    if (context.model && this.providerFor(context.model.provider, false)) this.model = context.model;
    this.thinkingLevel = asThinkingLevel(context.thinkingLevel);
    this.extensionState = { ...context.extensionState };
  }

  private async maybeAutoCompact(signal?: AbortSignal): Promise<void> {
    const window = this.contextWindow();
    if (!window) return;
    const tokens = estimateContextTokens((await this.keptContext()).messages);
    if (tokens <= window - this.compactionSettings().reserveTokens) return;
    // A failed summary writes nothing (see compact); the prompt still goes, and the user knows.
    await this.compactAutomatically("auto", tokens, signal);
  }

  /**
   * An automatic compaction, announced by events: the entry written; undefined when automatic
   * compaction is off, there is nothing to compact (one huge turn: then nothing is announced) or
   * the summary failed (reported in `compaction_end`).
   */
  private async compactAutomatically(reason: CompactionReason, tokens: number, signal?: AbortSignal) {
    const window = this.contextWindow();
    if (!window || !prepareCompaction(await this.backend.path(), this.compactionSettings())) return undefined;
    await this.onEvent({ type: "compaction_start", reason, tokens, contextWindow: window });
    try {
      const entryId = await this.compact({ signal });
      await this.onEvent({ type: "compaction_end", reason, entryId });
      return entryId;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      await this.onEvent({ type: "compaction_end", reason, entryId: undefined, error: message });
      return undefined;
    }
  }

  /** The current model's context window (`contextWindow`); undefined: no automatic compaction. */
  private contextWindow(): number | undefined {
    const option = this.options.contextWindow;
    return (typeof option === "function" ? option(this.getModel()) : option) || undefined;
  }

  private compactionSettings(): CompactionSettings {
    return { ...DEFAULT_COMPACTION_SETTINGS, ...this.options.compaction };
  }

  private providerFor(name: string, required: true): Provider;
  private providerFor(name: string, required: false): Provider | undefined;
  private providerFor(name: string, required: boolean): Provider | undefined {
    const provider = this.options.providers.find((p) => p.name === name);
    if (!provider && required) {
      throw new ValidationError("invalid_argument", `No provider named ${name} is configured`, {
        details: { provider: name },
      });
    }
    return provider;
  }
}

function pickDefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function isBackend(value: SessionBackend | SessionManagerLike): value is SessionBackend {
  return typeof (value as SessionBackend).appendUnder === "function";
}

function asThinkingLevel(level: string, strict = false): ThinkingLevel {
  if ((THINKING_LEVELS as readonly string[]).includes(level)) return level as ThinkingLevel;
  if (strict)
    throw new ValidationError("invalid_argument", `Unknown thinking level ${level}`, { details: { level } });
  return "off";
}

export type { SessionEntry };
