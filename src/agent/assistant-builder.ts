import type { AssistantMessage, ContentBlock } from "../core/messages.js";
import { type Provider, type ProviderEvent, zeroUsage } from "./provider.js";

/** Assembles a pi assistant message from a provider's stream, blocks in arrival order. */
export class AssistantBuilder {
  readonly message: AssistantMessage;
  private ended = false;

  constructor(provider: Provider, model: string) {
    this.message = {
      role: "assistant",
      content: [],
      api: provider.api,
      provider: provider.name,
      model,
      usage: zeroUsage() as unknown as Record<string, unknown>,
      stopReason: "stop",
      timestamp: Date.now(),
    };
  }

  /** Applies one event; returns the visible delta, if any, for `message_update`. */
  apply(event: ProviderEvent): { kind: "text" | "thinking"; text: string } | undefined {
    if (this.ended) return undefined;
    switch (event.type) {
      case "text_delta":
        this.appendText("text", event.delta);
        return { kind: "text", text: event.delta };
      case "thinking_delta": {
        const block = this.appendText("thinking", event.delta);
        if (event.signature)
          block.thinkingSignature = `${String(block.thinkingSignature ?? "")}${event.signature}`;
        return event.delta ? { kind: "thinking", text: event.delta } : undefined;
      }
      case "redacted_thinking":
        // pi-ai's shape for it: the opaque data in the signature, sent back as redacted_thinking.
        this.message.content.push({
          type: "thinking",
          thinking: "[Reasoning redacted]",
          thinkingSignature: event.data,
          redacted: true,
        });
        return undefined;
      case "tool_call":
        this.message.content.push({
          type: "toolCall",
          id: event.id,
          name: event.name,
          arguments: event.arguments,
        });
        return undefined;
      case "done":
        this.message.usage = event.usage as unknown as Record<string, unknown>;
        // A refusal or a filtered reply: kept for people to read, never sent back, no tool runs.
        if (event.stopReason === "error" || event.stopReason === "aborted")
          this.fail(
            event.errorMessage ?? `Provider stop: ${event.stopReason}`,
            event.stopReason === "aborted",
          );
        else this.message.stopReason = event.stopReason;
        this.ended = true;
        return undefined;
      case "error":
        if (event.usage) this.message.usage = event.usage as unknown as Record<string, unknown>;
        this.fail(event.message, event.aborted);
        return undefined;
    }
  }

  fail(message: string, aborted: boolean): void {
    this.message.stopReason = aborted ? "aborted" : "error";
    this.message.errorMessage = message;
    // A partial tool call cannot be answered; drop it so the stored turn stays a valid pair set.
    this.message.content = this.message.content.filter((b) => b.type !== "toolCall");
    this.ended = true;
  }

  finish(): AssistantMessage {
    if (!this.ended) this.fail("The provider stream ended without a final event", false);
    return this.message;
  }

  private appendText(kind: "text" | "thinking", delta: string): ContentBlock & Record<string, unknown> {
    const last = this.message.content[this.message.content.length - 1];
    if (last && last.type === kind) {
      if (kind === "text") (last as { text: string }).text += delta;
      else (last as { thinking: string }).thinking += delta;
      return last;
    }
    const block: ContentBlock =
      kind === "text" ? { type: "text", text: delta } : { type: "thinking", thinking: delta };
    this.message.content.push(block);
    return block;
  }
}
