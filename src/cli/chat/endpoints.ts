import {
  type AgentSession,
  AnthropicProvider,
  OpenAiProvider,
  type Provider,
  ScriptedProvider,
} from "../../agent/index.js";
import { ValidationError } from "../../core/errors.js";

export const DEFAULT_MODELS: Record<string, string> = {
  scripted: "scripted-1",
  openai: "gpt-4o-mini",
  anthropic: "claude-sonnet-4-5",
};

const PUBLIC_ENDPOINTS: Record<string, string> = {
  openai: "https://api.openai.com/v1",
  anthropic: "https://api.anthropic.com",
};

export interface EndpointOptions {
  provider?: string;
  model?: string;
  baseUrl?: string;
}

/**
 * The chat's providers and where each one sends. A `--base-url` belongs to one provider for the
 * whole chat: the one named by `--provider`, else the resumed session's, else the one whose key is
 * in the environment, else OpenAI (a local OpenAI-compatible server needs no key).
 */
export class ChatEndpoints {
  readonly providers: Provider[];
  /** The provider the chat starts on (first in `providers`). */
  readonly chosen: string;
  /** The provider `--base-url` was given for, if one was. */
  readonly baseUrlProvider: string | undefined;

  constructor(
    private readonly options: EndpointOptions,
    sessionProvider: string | undefined,
  ) {
    const name = options.provider ?? defaultProvider(options, sessionProvider);
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
    if (options.baseUrl && name === "scripted")
      throw new ValidationError("invalid_argument", "--base-url needs --provider openai or anthropic");
    this.chosen = name;
    this.baseUrlProvider = options.baseUrl ? name : undefined;
    this.providers = [chosen, ...all.filter((p) => p !== chosen)];
  }

  /** Where a provider's requests go ("nowhere" for the scripted model). */
  endpointOf(provider: string): string {
    if (provider === this.baseUrlProvider) return this.options.baseUrl as string;
    return PUBLIC_ENDPOINTS[provider] ?? "nowhere (offline)";
  }

  /**
   * Why a switch to `provider` needs the user's yes: it would leave the `--base-url` this chat was
   * started with for a public endpoint. Undefined when it stays where it was or sends nothing.
   */
  leavingBaseUrl(provider: string): string | undefined {
    if (!this.baseUrlProvider || provider === this.baseUrlProvider || provider === "scripted")
      return undefined;
    return (
      `This chat sends to ${this.options.baseUrl} (--base-url, for ${this.baseUrlProvider}). ` +
      `${provider} would send the conversation to ${this.endpointOf(provider)}.`
    );
  }

  /**
   * The model after open: a resumed session keeps its model unless the user names another. A
   * `--provider` other than the session's starts on that provider's default model (or `--model`).
   */
  async align(agent: AgentSession): Promise<void> {
    const current = agent.getModel();
    const { provider: named, model } = this.options;
    if (!named && !model) return;
    const provider = named ?? current.provider;
    const modelId = model ?? (provider === current.provider ? current.modelId : DEFAULT_MODELS[provider]);
    if (provider === current.provider && modelId === current.modelId) return;
    await agent.setModel(provider, modelId ?? "");
  }
}

function defaultProvider(options: EndpointOptions, sessionProvider: string | undefined): string {
  const remote = (name: string | undefined) => name === "openai" || name === "anthropic";
  if (options.baseUrl && remote(sessionProvider)) return sessionProvider as string;
  if (process.env.OPENAI_API_KEY) return "openai";
  if (process.env.ANTHROPIC_API_KEY) return "anthropic";
  return options.baseUrl ? "openai" : "scripted";
}
