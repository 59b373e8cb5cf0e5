import { NotFoundError } from "../../core/errors.js";
import type { Planned } from "./thread-writer.js";

interface Waiter {
  plan: () => Promise<Planned>;
  resolve: () => void;
  reject: (error: unknown) => void;
  timer: ReturnType<typeof setTimeout>;
}

/**
 * Writes that arrived before the put of their checkpoint, by checkpoint: each is planned when the
 * put is (`release`), or fails after `waitMs` with `entry_not_found` (a checkpoint never put).
 */
export class WaitingWrites {
  private readonly waiting = new Map<string, Waiter[]>();

  constructor(private readonly waitMs: number) {}

  /** Whether no write is waiting. */
  get empty(): boolean {
    return this.waiting.size === 0;
  }

  /** A promise settled once what `plan` planned after the checkpoint's put is stored (or the wait ran out). */
  wait(key: string, plan: () => Promise<Planned>): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        const list = this.waiting.get(key) ?? [];
        this.waiting.set(
          key,
          list.filter((waiter) => waiter.timer !== timer),
        );
        if (this.waiting.get(key)?.length === 0) this.waiting.delete(key);
        reject(
          new NotFoundError("entry_not_found", "Writes against a checkpoint that was never put", {
            details: { checkpoint: key.split("\u0000")[1], waitedMs: this.waitMs },
          }),
        );
      }, this.waitMs);
      timer.unref?.();
      const list = this.waiting.get(key) ?? [];
      list.push({ plan, resolve, reject, timer });
      this.waiting.set(key, list);
    });
  }

  /** Plans, in arrival order, everything waiting for this checkpoint (not waiting for it to be stored). */
  async release(key: string): Promise<void> {
    const list = this.waiting.get(key);
    if (!list) return;
    this.waiting.delete(key);
    for (const waiter of list) {
      clearTimeout(waiter.timer);
      try {
        const { stored } = await waiter.plan();
        stored.then(waiter.resolve, waiter.reject);
      } catch (error) {
        waiter.reject(error);
      }
    }
  }
}
