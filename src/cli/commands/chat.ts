import type { Command } from "commander";
import type { ChatOptions } from "./chat-run.js";

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** `sessiontree chat`: an interactive terminal chat persisted into a session tree. */
export function register(program: Command): void {
  program
    .command("chat")
    .description("chat with a coding agent in the terminal; every turn is kept in a session tree")
    .option("--resume <id>", "resume a session by id (or unique id prefix)")
    .option("--continue", "resume the most recent session of this directory")
    .option("--provider <name>", "scripted | openai | anthropic (default: by API key in env, else scripted)")
    .option("--model <id>", "model id for the provider")
    .option("--base-url <url>", "OpenAI-compatible (or Anthropic) endpoint")
    .option("--root <dir>", "sessions root (default: $SESSIONTREE_ROOT or ~/.sessiontree)")
    .option("--system <text>", "system prompt")
    .option(
      "--allow <rule>",
      "allow a tool for this chat: bash, 'bash(git *)', 'write(src/*)' (repeatable)",
      collect,
    )
    .option("--deny <rule>", "deny a tool for this chat, above every other rule (repeatable)", collect)
    .option("--hide-thinking", "show (thinking…) instead of the model's reasoning")
    .option(
      "--context-window <tokens>",
      "compact automatically near this many tokens (default: the model's window)",
    )
    .action(async (_options: ChatOptions, command: Command) => {
      // Loaded on use: the agent layer is not needed by any other command.
      const { runChat } = await import("./chat-run.js");
      await runChat(command.optsWithGlobals<ChatOptions>());
    });
}
