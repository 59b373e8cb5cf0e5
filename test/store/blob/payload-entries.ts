import { randomBytes } from "node:crypto";
import type { SessionEntry } from "../../../src/core/entry.js";

let clock = Date.parse("2026-01-01T00:00:00Z");

function stamp(): { timestamp: string; ms: number } {
  clock += 1000;
  return { timestamp: new Date(clock).toISOString(), ms: clock };
}

/** A user message with a text and an image part (`bytes` random image bytes, base64 in the entry). */
export function userWithImage(id: string, parentId: string | null, bytes = 2048): SessionEntry {
  const { timestamp, ms } = stamp();
  const data = randomBytes(bytes).toString("base64");
  return {
    type: "message",
    id,
    parentId,
    timestamp,
    message: {
      role: "user",
      content: [
        { type: "text", text: `look at ${id}` },
        { type: "image", data, mimeType: "image/png" },
      ],
      timestamp: ms,
    },
  } as unknown as SessionEntry;
}

/** A tool result whose text part is `chars` characters long (above the 64 KiB threshold by default). */
export function bigToolResult(id: string, parentId: string | null, chars = 100_000): SessionEntry {
  const { timestamp, ms } = stamp();
  const line = `${id}: ${randomBytes(24).toString("hex")}\n`;
  const text = line.repeat(Math.ceil(chars / line.length)).slice(0, chars);
  return {
    type: "message",
    id,
    parentId,
    timestamp,
    message: {
      role: "toolResult",
      toolCallId: `call-${id}`,
      toolName: "bash",
      content: [{ type: "text", text }],
      isError: false,
      timestamp: ms,
    },
  } as unknown as SessionEntry;
}

/** A small user message (stays inline). */
export function smallUser(id: string, parentId: string | null, text = `hello ${id}`): SessionEntry {
  const { timestamp, ms } = stamp();
  return {
    type: "message",
    id,
    parentId,
    timestamp,
    message: { role: "user", content: text, timestamp: ms },
  } as unknown as SessionEntry;
}
