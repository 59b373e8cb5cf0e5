import { isSessionTreeError } from "../core/errors.js";

/** What a command's exit status means: scripts rely on these. */
export const EXIT_OK = 0;
/** Findings (fsck found problems, import skipped lines) or an error while doing the work. */
export const EXIT_FINDINGS = 1;
/** The command line itself was wrong: unknown command or option, bad or ambiguous argument. */
export const EXIT_USAGE = 2;

/** A mistake in the command line (exit 2), as opposed to a problem with the data (exit 1). */
export class UsageError extends Error {
  readonly code = "usage";
}

export function exitCodeFor(error: unknown): number {
  if (error instanceof UsageError) return EXIT_USAGE;
  if (isSessionTreeError(error, "invalid_argument")) return EXIT_USAGE;
  return EXIT_FINDINGS;
}

/** The stable code of an error for `--json` output. */
export function errorCode(error: unknown): string {
  if (error instanceof UsageError) return "usage";
  if (isSessionTreeError(error)) return error.code;
  return "internal";
}
