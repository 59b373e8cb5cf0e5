import { basename } from "node:path";
import {
  CURRENT_SESSION_VERSION,
  headerVersion,
  type SessionEntry,
  type SessionHeader,
} from "../core/entry.js";
import { CorruptSessionError } from "../core/errors.js";
import type { SessionIssue } from "../core/issues.js";
import { newSessionId } from "../core/session-id.js";
import type { SessionTree } from "../core/tree.js";
import type { DecodedSession } from "../format/jsonl/decode.js";
import { encodeSession } from "../format/jsonl/encode.js";
import { treeOf } from "./fsck.js";
import { carryLateLines } from "./late-lines.js";
import { withCurrentFileLocked } from "./locked-current.js";
import { readWholeFromFd } from "./read-file.js";
import { replaceKeepingBackup } from "./rewrite.js";

export interface RepairAction {
  kind:
    | "dropped_line"
    | "dropped_part"
    | "split_line"
    | "kept_torn_tail_entries"
    | "collapsed_duplicate"
    | "dropped_conflicting_duplicate"
    | "cut_torn_tail"
    | "ended_last_line"
    | "rebuilt_header"
    | "broke_cycle"
    | "migrated";
  message: string;
  line?: number;
  offset?: number;
  entryId?: string;
}

export interface RepairReport {
  path: string;
  /** False when the file was already clean: nothing was written. */
  changed: boolean;
  /** Where the original bytes were kept (null when nothing changed, or on a dry run). */
  backupPath: string | null;
  actions: RepairAction[];
  entriesWritten: number;
  /**
   * Lines a writer without our lock (pi) appended while the repair ran, carried over from the old
   * file (late-lines.ts): in the session after the entries written.
   */
  carriedLines: number;
}

export interface RepairOptions {
  /** Report what would be done without writing. */
  dryRun?: boolean;
}

/**
 * Rewrites a session file as a clean v3 file: one valid header, every valid entry once, in file
 * order (so the leaf stays where it was), parent cycles broken, torn tail and damaged lines left
 * out. The write is atomic and the original is kept byte-for-byte as `<file>.bak-<time>`; every
 * line left out is listed in the report. Holds the file's lock so no sessiontree writer interleaves.
 */
export function repairFile(path: string, options: RepairOptions = {}): RepairReport {
  // On the file the path names once locked: another rewrite may have renamed a new one in.
  return withCurrentFileLocked(path, (fd) => {
    const { bytes, decoded } = readWholeFromFd(fd);
    const plan = planRepair(path, decoded);
    const content = Buffer.from(encodeSession(plan.header, plan.entries));
    // Against the bytes it read, not the path's now: a line pi appended since is not a change.
    const changed = !content.equals(bytes);
    let backupPath: string | null = null;
    let carriedLines = 0;
    if (changed && !options.dryRun) {
      backupPath = replaceKeepingBackup(path, content, `bak-${Date.now()}`);
      carriedLines = carryLateLines(path, backupPath, bytes.length);
    }
    const entriesWritten = plan.entries.length;
    return { path, changed, backupPath, actions: plan.actions, entriesWritten, carriedLines };
  });
}

interface RepairPlan {
  header: SessionHeader;
  entries: SessionEntry[];
  actions: RepairAction[];
}

function planRepair(path: string, decoded: DecodedSession): RepairPlan {
  const keepsTail = (decoded.tornTail?.entries.length ?? 0) > 0;
  const actions: RepairAction[] = decoded.issues
    .filter((issue) => !(keepsTail && issue.code === "torn_tail"))
    .flatMap(actionForReadIssue);
  const header = decoded.header ?? rebuildHeader(path, decoded);
  if (!decoded.header)
    actions.push({
      kind: "rebuilt_header",
      message: `Wrote a new header for session ${header.id} (cwd unknown)`,
    });
  if (decoded.migratedFrom !== null) {
    actions.push({
      kind: "migrated",
      message: `Migrated from format v${decoded.migratedFrom} to v${CURRENT_SESSION_VERSION}`,
    });
  }
  const tree = treeOf(decoded);
  if (keepsTail) actions.push(keepTailEntries(tree, decoded.tornTail as TornTail));
  for (const issue of tree.getIssues()) {
    if (issue.code === "duplicate_identical") actions.push({ kind: "collapsed_duplicate", ...where(issue) });
    if (issue.code === "duplicate_conflict")
      actions.push({ kind: "dropped_conflicting_duplicate", ...where(issue) });
  }
  const cuts = new Set(
    tree
      .getIssues()
      .filter((i) => i.code === "parent_cycle")
      .map((i) => i.entryId as string),
  );
  const entries = tree.getStoredEntries().map((entry) => {
    if (!cuts.has(entry.id)) return entry;
    actions.push({
      kind: "broke_cycle",
      message: `Entry ${entry.id} closed a parent cycle; its parentId is now null (was ${entry.parentId})`,
      entryId: entry.id,
    });
    return { ...entry, parentId: null };
  });
  return { header: { ...header, version: writtenVersion(header) }, entries, actions };
}

/**
 * The version the repaired file says: the current one (a v1/v2 file was migrated as it was read),
 * or the header's own when it is newer. Its entries are written back as read, unknown fields and
 * types included, so calling a newer file v3 would only lose what the newer version means.
 */
function writtenVersion(header: SessionHeader): unknown {
  return headerVersion(header) > CURRENT_SESSION_VERSION ? header.version : CURRENT_SESSION_VERSION;
}

type TornTail = NonNullable<DecodedSession["tornTail"]>;

/**
 * Whole records that lost only their newline (one, or several glued) join the tree after every
 * line, as they would have with the newline: written back on lines of their own, the rest cut.
 */
function keepTailEntries(tree: SessionTree, tail: TornTail): RepairAction {
  for (const entry of tail.entries) tree.load(entry, { line: tail.line, offset: tail.offset });
  const count = tail.entries.length;
  return {
    kind: "kept_torn_tail_entries",
    message: `Line ${tail.line} had no newline: kept the ${count} complete entr${count === 1 ? "y" : "ies"} it holds, on lines of their own (its bytes are in the backup)`,
    line: tail.line,
    offset: tail.offset,
  };
}

function actionForReadIssue(issue: SessionIssue): RepairAction[] {
  switch (issue.code) {
    case "torn_tail":
      return [{ kind: "cut_torn_tail", ...where(issue) }];
    case "unterminated_line":
      return [
        {
          kind: "ended_last_line",
          ...where(issue),
          message: `Line ${issue.line} had no newline: written with one`,
        },
      ];
    case "glued_records":
      return [
        { kind: "split_line", ...where(issue), message: `${issue.message}: written as separate lines` },
      ];
    case "invalid_json":
    case "invalid_utf8":
    case "invalid_entry":
    case "invalid_header":
      // A damaged part of a line whose other parts were records: only that part is left out.
      return [{ kind: issue.part ? "dropped_part" : "dropped_line", ...where(issue) }];
    default:
      return [];
  }
}

function where(issue: SessionIssue): Omit<RepairAction, "kind"> {
  return { message: issue.message, line: issue.line, offset: issue.offset, entryId: issue.entryId };
}

/** A header for a file that lost its own: id from pi's file name `<ts>_<id>.jsonl` when it has one. */
function rebuildHeader(path: string, decoded: DecodedSession): SessionHeader {
  const match = /_([0-9a-f-]{36})\.jsonl$/i.exec(basename(path));
  const first = decoded.entries[0]?.entry;
  if (!first && decoded.tornTail === null && decoded.issues.length === 0) {
    throw new CorruptSessionError("not_a_session", `${path} is empty: nothing to repair`);
  }
  return {
    type: "session",
    version: CURRENT_SESSION_VERSION,
    id: match?.[1] ?? newSessionId(),
    // The first entry's time, when it has one as text (another writer's may not).
    timestamp: typeof first?.timestamp === "string" ? first.timestamp : new Date().toISOString(),
    cwd: "",
  };
}
