import type { SessionInfoEntry } from "../core/entry.js";
import { str } from "./codex-content.js";
import type { CodexImporter } from "./codex-importer.js";
import { type CodexRecord, lineId } from "./codex-records.js";

/** Events that only mark a turn's start or end: they close the open response and need no entry. */
const TURN_MARKERS = new Set(["task_started", "turn_started", "task_complete", "turn_complete"]);

/**
 * Codex's `event_msg` records: what the UI showed. Most repeat a response item (the user's
 * message, the model's message and reasoning) and are folded into it; a copy whose response item
 * is missing (a version or a file that has only the event) becomes the message itself. Token
 * counts give the assistant message its usage, a thread name becomes the session name, a rollback
 * leaves the turns it drops on a branch of their own, and every other event is kept as a
 * `codex.event.<type>` custom entry.
 */
export class EventMapper {
  constructor(private readonly importer: CodexImporter) {}

  event(record: CodexRecord): void {
    const p = record.payload;
    const type = String(p.type ?? "event");
    const im = this.importer;
    const texts = im.sources;
    if (type === "user_message") {
      const text = typeof p.message === "string" ? p.message : "";
      if (texts.userTexts.has(text.trim())) im.fold("event_msg.user_message");
      else im.userMessage(record, [{ type: "text", text }]);
    } else if (type === "agent_message") {
      const text = typeof p.message === "string" ? p.message : "";
      if (texts.assistantTexts.has(text.trim())) im.fold("event_msg.agent_message");
      else im.assistantBlocks(record, [{ type: "text", text }]);
    } else if (type === "agent_reasoning" || type === "agent_reasoning_raw_content") {
      const text = typeof p.text === "string" ? p.text : "";
      if (texts.reasoningTexts.has(text.trim())) im.fold(`event_msg.${type}`);
      else im.assistantBlocks(record, [{ type: "thinking", thinking: text }]);
    } else if (type === "token_count") {
      im.fold(im.usage(p.info) ? "event_msg.token_count (usage)" : "event_msg.token_count");
    } else if (TURN_MARKERS.has(type)) {
      im.close();
      im.fold(`event_msg.${type}`);
    } else if (type === "thread_rolled_back") {
      im.custom(record, `event.${type}`, p);
      im.rollBack(p.num_turns);
    } else if (type === "thread_name_updated" && str(p.thread_name)) {
      this.name(record, p.thread_name as string);
    } else {
      im.custom(record, `event.${type}`, p);
    }
  }

  private name(record: CodexRecord, name: string): void {
    const im = this.importer;
    im.close();
    const entry: SessionInfoEntry = {
      id: lineId(record.line),
      parentId: null,
      timestamp: record.timestamp ?? im.lastTimestamp ?? "",
      type: "session_info",
      name,
    };
    im.push(entry, "session_name");
  }
}
