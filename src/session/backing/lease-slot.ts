import { isSessionTreeError, SessionTreeError } from "../../core/errors.js";
import { WriterLease } from "../../file/lease.js";

/** What the manager's `lease` option asks for; undefined: no lease (any number of writers). */
export type LeaseMode = "fail" | "read-only" | undefined;

/**
 * The writer lease of one session file, as the manager's `lease` option asks: taken when the
 * session is opened (or first written), given up by `close()`, taken again by the next write. It
 * passes from a partial backing to the whole read that replaces it, since the file is the same.
 */
export class LeaseSlot {
  private lease: WriterLease | null = null;
  /** Another live process held the lease when asked, and the mode said to go read-only. */
  private refused = false;

  constructor(
    private readonly sessionPath: string,
    private readonly mode: LeaseMode,
  ) {}

  /** A slot for `sessionPath` whose lease (if one is asked for) is taken now. */
  static taken(sessionPath: string, mode: LeaseMode): LeaseSlot {
    const slot = new LeaseSlot(sessionPath, mode);
    slot.take();
    return slot;
  }

  /** Takes the lease if one is asked for: a live holder throws `LeaseHeldError`, or makes the session read-only. */
  take(): void {
    if (!this.mode) return;
    try {
      this.lease = WriterLease.acquire(this.sessionPath);
    } catch (error) {
      if (this.mode !== "read-only" || !isSessionTreeError(error, "lease_held")) throw error;
      this.refused = true;
    }
  }

  get readOnly(): boolean {
    return this.refused;
  }

  /** A lease is asked for and not held (given up by `close()`): the next write takes it first. */
  get missing(): boolean {
    return Boolean(this.mode) && this.lease === null;
  }

  /** Whether a write may go ahead as things stand: not refused, and no lease to take first. */
  get ready(): boolean {
    return !this.refused && !this.missing;
  }

  /** Throws `read_only` when writes are refused. */
  checkWritable(sessionId: string): void {
    if (this.refused)
      throw new SessionTreeError(
        "read_only",
        `Session ${sessionId} is owned by another process (writer lease)`,
      );
  }

  release(): void {
    this.lease?.release();
    this.lease = null;
  }
}
