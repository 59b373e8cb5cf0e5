import type { Static, TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import type { ImageContent, TextContent } from "../core/messages.js";
import type { ToolSpec } from "./provider.js";

/** What a tool hands back: content for the model, details for UIs and state (never sent). */
export interface ToolOutput {
  content: string | (TextContent | ImageContent)[];
  details?: unknown;
  isError?: boolean;
}

export interface ToolContext {
  toolCallId: string;
  signal: AbortSignal;
  /** Progress for listeners (a UI); never persisted. */
  onProgress(update: unknown): void;
}

/**
 * A tool: a TypeBox schema for its arguments and an executor. Arguments are validated against the
 * schema before `execute` runs; a mismatch becomes an error result the model can read.
 * @example
 * const echo = defineTool({ name: "echo", description: "Echo text", parameters: Type.Object({ text: Type.String() }),
 *   execute: async ({ text }) => ({ content: text }) });
 */
export interface AgentTool<S extends TSchema = TSchema> {
  name: string;
  description: string;
  parameters: S;
  execute(args: Static<S>, context: ToolContext): Promise<ToolOutput>;
}

/** Identity helper that infers the argument type from the schema. */
export function defineTool<S extends TSchema>(tool: AgentTool<S>): AgentTool<S> {
  return tool;
}

export function toolSpec(tool: AgentTool): ToolSpec {
  return {
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters as unknown as Record<string, unknown>,
  };
}

/** Why arguments do not fit a tool's schema, or undefined when they do. */
export function argumentProblems(tool: AgentTool, args: unknown): string | undefined {
  if (Value.Check(tool.parameters, args)) return undefined;
  const problems = [...Value.Errors(tool.parameters, args)]
    .slice(0, 5)
    .map((e) => `${e.path || "/"}: ${e.message}`);
  return `Invalid arguments for ${tool.name}: ${problems.join("; ")}`;
}
