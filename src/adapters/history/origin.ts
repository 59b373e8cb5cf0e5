import type { SessionEntry } from "../../core/entry.js";

/**
 * Each entry an adapter writes keeps the framework's own record beside the fields pi reads, under
 * one key, `origin`: on the message of a `message` entry, in `data` of a `custom` entry, in
 * `details` of a `custom_message`. pi keeps fields it does not know (it writes the message object
 * it was given, and its providers build requests from the fields they know), so the session
 * stays an ordinary pi session while the record round-trips exactly. The record itself is kept as
 * JSON text, less the payloads pi's blocks already hold (record-text.ts).
 */
export const ORIGIN_KEY = "origin";

export interface Origin {
  /** "openai-agents" or "ai-sdk". */
  framework: string;
  [key: string]: unknown;
}

/** The origin an entry carries, or undefined for an entry the adapters did not write. */
export function originOf(entry: SessionEntry): Origin | undefined {
  let holder: unknown;
  if (entry.type === "message") holder = entry.message;
  else if (entry.type === "custom") holder = entry.data;
  else if (entry.type === "custom_message") holder = entry.details;
  if (holder === null || typeof holder !== "object") return undefined;
  const origin = (holder as Record<string, unknown>)[ORIGIN_KEY];
  if (origin === null || typeof origin !== "object") return undefined;
  return typeof (origin as Origin).framework === "string" ? (origin as Origin) : undefined;
}

/** The origin of `framework` on `entry`, if any. */
export function originFrom(entry: SessionEntry, framework: string): Origin | undefined {
  const origin = originOf(entry);
  return origin?.framework === framework ? origin : undefined;
}
