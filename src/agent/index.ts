/**
 * sessiontree/agent: an agent loop whose life is persisted into a session tree, and resumed exactly.
 * See docs/agent.md.
 */
export { AgentSession, type AgentSessionOptions, type PromptOptions } from "./agent-session.js";
export { AssistantBuilder } from "./assistant-builder.js";
export type { SessionBackend } from "./backend/backend.js";
export { SessionManagerBackend, type SessionManagerLike } from "./backend/session-manager-backend.js";
export { StoreBackend } from "./backend/store-backend.js";
export { compactionDraft, leavingMessages } from "./compaction/compact.js";
export { type CutPoint, findCutPoint, splitsToolPair } from "./compaction/cut-point.js";
export {
  type CompactionPlan,
  type CompactionSettings,
  DEFAULT_COMPACTION_SETTINGS,
  prepareCompaction,
} from "./compaction/prepare.js";
export { SUMMARY_SYSTEM_PROMPT, serializeConversation, summarize } from "./compaction/summarize.js";
export { estimateContextTokens, estimateTokens } from "./compaction/tokens.js";
export { anthropicBody, anthropicPayload } from "./convert/anthropic-payload.js";
export { type LlmMessage, MISSING_RESULT_TEXT, toLlmMessages } from "./convert/llm-messages.js";
export { openAiBody, openAiPayload } from "./convert/openai-payload.js";
export { stableStringify } from "./convert/stable-json.js";
export type { AgentEvent, AgentListener, LoopMessage } from "./events.js";
export { readOnlyFsTools } from "./fs-tools.js";
export { type LoopConfig, type LoopHooks, runLoop } from "./loop.js";
export {
  globMatch,
  type PermissionDecision,
  PermissionPolicy,
  type PermissionPolicyOptions,
  type PermissionResult,
  type PermissionRule,
} from "./permissions.js";
export * from "./provider.js";
export { AnthropicProvider, type AnthropicProviderOptions } from "./providers/anthropic.js";
export { OpenAiProvider, type OpenAiProviderOptions } from "./providers/openai.js";
export {
  defaultScript,
  ScriptedProvider,
  type ScriptedProviderOptions,
  type ScriptedReply,
} from "./providers/scripted.js";
export {
  INTERRUPTED_REPLY_TEXT,
  INTERRUPTED_RESULT_TEXT,
  interruptedReply,
  interruptedResults,
} from "./resume.js";
export {
  type AgentTool,
  argumentProblems,
  defineTool,
  type ToolContext,
  type ToolOutput,
  toolSpec,
} from "./tools.js";
export { WriteQueue } from "./write-queue.js";
