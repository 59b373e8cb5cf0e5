/**
 * sessiontree/agent: an agent loop whose life is persisted into a session tree, and resumed exactly.
 * See docs/agent.md. Only what a program built on it uses is exported here; the parts (conversion,
 * compaction steps, the write queue) are internal.
 */

export type { SessionManagerLike } from "../session/session-manager-like.js";
export { AgentSession, type AgentSessionOptions, type PromptOptions } from "./agent-session.js";
export type { SessionBackend } from "./backend/backend.js";
export { StoreBackend } from "./backend/store-backend.js";
export { type BashToolOptions, codingTools } from "./coding/index.js";
export { type CompactionSettings, DEFAULT_COMPACTION_SETTINGS } from "./compaction/prepare.js";
export type { LlmMessage } from "./convert/llm-messages.js";
export type { AgentEvent, AgentListener, LoopMessage } from "./events.js";
export { readOnlyFsTools } from "./fs-tools.js";
export { type LoopConfig, type LoopHooks, runLoop } from "./loop.js";
export {
  type AskAnswer,
  describeRule,
  type PermissionDecision,
  PermissionPolicy,
  type PermissionPolicyOptions,
  type PermissionResult,
  type PermissionRule,
} from "./permissions.js";
export {
  type Provider,
  type ProviderErrorEvent,
  type ProviderEvent,
  type ProviderRequest,
  type Repair,
  THINKING_LEVELS,
  type ThinkingLevel,
  type ToolSpec,
  type Usage,
  usageOf,
} from "./provider.js";
export { AnthropicProvider, type AnthropicProviderOptions } from "./providers/anthropic.js";
export { OpenAiProvider, type OpenAiProviderOptions } from "./providers/openai.js";
export {
  defaultScript,
  ScriptedProvider,
  type ScriptedProviderOptions,
  type ScriptedReply,
} from "./providers/scripted.js";
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from "./retry.js";
export {
  BUILT_IN_RULES,
  loadPermissionSettings,
  type PermissionSettings,
  type PermissionSources,
  parsePermissionSettings,
  parseRuleSpec,
} from "./settings.js";
export { type AgentTool, defineTool, type ToolContext, type ToolOutput } from "./tools.js";
