import type { EntryDraft, SessionEntry } from "../../core/entry.js";
import { imageDataUrl } from "./pi-messages.js";
import { deepFreeze } from "./session-lru.js";

/**
 * Each payload once per entry. An adapter's entry holds the framework's record (under `origin`)
 * beside the pi content made from it, so a payload of both (an image, a pasted document, a tool's
 * output) would be in the entry twice, and one over half the entry limit (2 MB) could not be
 * stored at all. So the record is kept as its JSON text, and each large payload of the entry's pi
 * content that the text holds is cut out of it, noted in `cuts` beside the text; reading puts the
 * same characters back, so the record round-trips byte for byte. A payload the text holds some
 * other way (changed, escaped otherwise) is not found, and is simply kept in both. As text, the
 * record's own nesting does not count against the entry's depth limit either.
 */

/** One payload cut out of a record's text. */
export interface Cut {
  /** Where it goes back into the text, as the cuts noted after it leave it (put back last first). */
  at: number;
  /** Which payload of the entry's pi content (`payloadsOf`). */
  payload: number;
  /** The text held it as it is (a JSON value pi shows as its JSON), not as a JSON string. */
  raw?: true;
}

/** Payloads shorter than this stay in the record: small entries read as they always have. */
const CUT_FROM_CHARS = 1024;

/** An object of the draft's origin that keeps a record text under some key, and its `cuts`. */
type Holder = Record<string, unknown>;

/**
 * Keeps `text` (a record as JSON) in `holder[key]`, less the large payloads of the draft's pi
 * content, noted in `holder.cuts`. `holder` is an object the draft holds (its origin, or a value
 * in it), so the draft is complete once this returns.
 */
export function keepText(draft: EntryDraft, holder: Holder, key: string, text: string): void {
  const cuts: Cut[] = [];
  let kept = text;
  payloadsOf(contentOf(draft)).forEach((payload, index) => {
    if (payload === undefined || payload.length < CUT_FROM_CHARS) return;
    const cut = cutOut(kept, payload, index);
    if (cut === undefined) return;
    kept = cut.text;
    cuts.push(cut.cut);
  });
  holder[key] = kept;
  if (cuts.length > 0) holder.cuts = cuts;
}

/** `text` less the first place it holds `payload` (as a JSON string, else as it is), and where. */
function cutOut(text: string, payload: string, index: number): { text: string; cut: Cut } | undefined {
  for (const raw of [false, true]) {
    const written = writtenAs(payload, raw);
    const at = text.indexOf(written);
    if (at < 0) continue;
    const cut: Cut = raw ? { at, payload: index, raw } : { at, payload: index };
    return { text: text.slice(0, at) + text.slice(at + written.length), cut };
  }
  return undefined;
}

/**
 * The text `keepText` kept in `holder[key]`, whole again; undefined when there is none, or when the
 * entry's content no longer holds a payload cut out of it (an entry damaged by hand).
 */
export function keptText(entry: SessionEntry, holder: Holder, key: string): string | undefined {
  const text = holder[key];
  if (typeof text !== "string") return undefined;
  const cuts = holder.cuts;
  if (!Array.isArray(cuts)) return text;
  const payloads = payloadsOf(contentOf(entry));
  let whole = text;
  for (const cut of [...cuts].reverse()) {
    const put = putBack(whole, cut, payloads);
    if (put === undefined) return undefined;
    whole = put;
  }
  return whole;
}

/** `text` with the payload a cut took out put back where it was; undefined when the cut cannot be. */
function putBack(
  text: string,
  cut: Partial<Cut> | null,
  payloads: Array<string | undefined>,
): string | undefined {
  const payload = typeof cut?.payload === "number" ? payloads[cut.payload] : undefined;
  const at = cut?.at;
  if (payload === undefined || typeof at !== "number" || !Number.isInteger(at) || at < 0 || at > text.length)
    return undefined;
  return text.slice(0, at) + writtenAs(payload, cut?.raw === true) + text.slice(at);
}

/** Records read back, by the frozen holder they were kept in (the history caches' entries are frozen). */
const readRecords = new WeakMap<Holder, unknown>();

/**
 * The record `keepText` kept in `holder[key]`, parsed; a record kept as an object (entries written
 * before records were kept as text) is that object. Undefined when the text cannot be put back
 * whole. The record of a frozen holder is parsed once, frozen and shared: hand out copies.
 */
export function keptRecord(entry: SessionEntry, holder: Holder, key: string): unknown {
  const value = holder[key];
  if (typeof value !== "string") return value;
  if (readRecords.has(holder)) return readRecords.get(holder);
  const record = parsed(keptText(entry, holder, key));
  if (Object.isFrozen(holder)) {
    deepFreeze(record);
    readRecords.set(holder, record);
  }
  return record;
}

function parsed(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined; // damaged: not a record
  }
}

/** A payload as a record's JSON text holds it: as a JSON string, or (raw) as it is. */
function writtenAs(payload: string, raw: boolean): string {
  return raw ? payload : JSON.stringify(payload);
}

/** The pi content of a message or custom message entry (other entries have none). */
function contentOf(entry: EntryDraft | SessionEntry): unknown {
  if (entry.type === "message") return (entry.message as { content?: unknown }).content;
  if (entry.type === "custom_message") return entry.content;
  return undefined;
}

/**
 * The strings of pi content a record may hold too, by position: a string content is one; a text
 * or thinking block its text; an image block the `data:` URL it was made from; others none.
 */
function payloadsOf(content: unknown): Array<string | undefined> {
  if (typeof content === "string") return [content];
  if (!Array.isArray(content)) return [];
  return content.map((block: Record<string, unknown> | null) => {
    if (block?.type === "text" && typeof block.text === "string") return block.text;
    if (block?.type === "thinking" && typeof block.thinking === "string") return block.thinking;
    if (block?.type === "image" && typeof block.mimeType === "string" && typeof block.data === "string")
      return imageDataUrl({ mimeType: block.mimeType, data: block.data });
    return undefined;
  });
}
