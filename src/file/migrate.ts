import { CURRENT_SESSION_VERSION, headerVersion } from "../core/entry.js";
import type { SessionIssue } from "../core/issues.js";
import { encodeSession } from "../format/jsonl/encode.js";
import { isFinding, treeOf } from "./fsck.js";
import { carryLateLines } from "./late-lines.js";
import { withCurrentFileLocked } from "./locked-current.js";
import { readWholeFromFd } from "./read-file.js";
import { replaceKeepingBackup } from "./rewrite.js";

export interface MigrateOptions {
  /** Report what would be done without writing. */
  dryRun?: boolean;
  /**
   * Migrate a file with findings (damaged lines, broken parents) too, leaving its damaged lines
   * out of the new file: they stay in the backup, and are listed in the report. Off by default:
   * leaving lines out is `repairFile`'s job, which says what it drops line by line. A writer about
   * to append to an older file turns it on, having reported the same findings when it read it.
   */
  leaveOutDamaged?: boolean;
}

export interface MigrateReport {
  path: string;
  /**
   * - `"current"`: already in the current format; nothing written.
   * - `"migrated"`: rewritten in the current format, the original kept at `backupPath`.
   * - `"would_migrate"`: what a dry run says instead of `"migrated"`.
   * - `"not_a_session"`: no session header; left alone (see `fsckFile`).
   * - `"damaged"`: it has `findings` the rewrite would leave out; left alone.
   */
  outcome: "current" | "migrated" | "would_migrate" | "not_a_session" | "damaged";
  /** The format version on disk before (1 for a file without one). */
  from: number;
  /** Where the original bytes were kept, `<file>.v<from>.bak` (null when nothing was written). */
  backupPath: string | null;
  entriesWritten: number;
  /**
   * Lines a writer without our lock (pi) appended while the rewrite ran, carried over from the old
   * file (late-lines.ts): in the session after the entries written.
   */
  carriedLines: number;
  /** Errors and warnings found on reading: why it was refused, or what was left out. */
  findings: SessionIssue[];
}

/**
 * Rewrites an older (v1, v2) session file in the current format, under the file's lock so no
 * sessiontree writer interleaves: every entry once, in file order (so the leaf stays where it was),
 * with the ids the in-memory migration gives (stable, so ids read before stay valid). The write is
 * atomic and the original is kept byte for byte as `<file>.v<N>.bak`. A file with findings is
 * refused unless `leaveOutDamaged`.
 */
export function migrateFile(path: string, options: MigrateOptions = {}): MigrateReport {
  // Read-only is enough: the lock is an flock, and the new content comes in by a rename. On the
  // file the path names once locked: another rewrite (an agent's own migration) may have won.
  return withCurrentFileLocked(path, (fd) => migrateLocked(path, fd, options));
}

function migrateLocked(path: string, fd: number, options: MigrateOptions): MigrateReport {
  const { bytes, decoded } = readWholeFromFd(fd);
  const from = decoded.migratedFrom ?? headerVersion(decoded.header ?? {});
  const report = (outcome: MigrateReport["outcome"], findings: SessionIssue[] = []): MigrateReport => ({
    path,
    outcome,
    from,
    backupPath: null,
    entriesWritten: 0,
    carriedLines: 0,
    findings,
  });
  if (!decoded.header) return report("not_a_session");
  if (from >= CURRENT_SESSION_VERSION) return report("current");
  const tree = treeOf(decoded);
  const findings = [...decoded.issues, ...tree.getIssues()].filter(isFinding);
  if (findings.length > 0 && !options.leaveOutDamaged) return report("damaged", findings);
  const entries = tree.getStoredEntries();
  if (options.dryRun) return { ...report("would_migrate", findings), entriesWritten: entries.length };
  const content = encodeSession(decoded.header, entries);
  const backupPath = replaceKeepingBackup(path, content, `v${from}.bak`);
  const carriedLines = carryLateLines(path, backupPath, bytes.length);
  return { ...report("migrated", findings), backupPath, entriesWritten: entries.length, carriedLines };
}
