/**
 * Problems found while reading or projecting a session. They are reported, never swallowed:
 * readers collect them, `fsck` prints them, `repair` acts on them.
 */
export type IssueCode =
  | "torn_tail"
  /** The last line has no newline but whole records, read as part of the session (info). */
  | "unterminated_line"
  | "invalid_json"
  /** Several records on one line (a lost newline): every one is kept, `repair` writes each on its own line. */
  | "glued_records"
  | "invalid_utf8"
  | "invalid_entry"
  /**
   * An entry whose known type lacks its own fields or holds them with other types (a warning): it
   * is kept in the tree, as pi keeps it, and nothing is derived from it (core/validate.ts).
   */
  | "malformed_entry"
  | "missing_header"
  | "invalid_header"
  | "duplicate_identical"
  | "duplicate_conflict"
  | "dangling_parent"
  | "parent_cycle"
  | "first_kept_not_on_path"
  | "leaf_target_missing";

export type IssueSeverity = "error" | "warning" | "info";

export interface SessionIssue {
  code: IssueCode;
  severity: IssueSeverity;
  message: string;
  /** The entry concerned, when there is one. */
  entryId?: string;
  /** 1-based line number in the file, when read from a file. */
  line?: number;
  /** Byte offset of the line's first byte, when read from a file. */
  offset?: number;
  /** The bytes of the line concerned, when the line held several records (`glued_records`). */
  part?: BytePart;
}

/** A range of bytes within one line: `start` inclusive, `end` exclusive, counted from the line's start. */
export interface BytePart {
  start: number;
  end: number;
}
