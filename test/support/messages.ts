/**
 * User and assistant messages as pi writes them, with strictly increasing timestamps, so listings
 * and "most recent" have a well-defined order in tests.
 */
export function messageMaker(start = 1_760_000_000_000) {
  let clock = start;
  const user = (text: string) => ({ role: "user" as const, content: text, timestamp: ++clock });
  const assistant = (text: string) => ({
    role: "assistant" as const,
    content: [{ type: "text" as const, text }],
    api: "anthropic-messages",
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2 },
    stopReason: "stop",
    timestamp: ++clock,
  });
  return { user, assistant };
}
