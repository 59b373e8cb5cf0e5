/**
 * The tests' one seeded PRNG (mulberry32): the same seed replays the same choices, so a failing
 * random test reproduces from the seed in its message. Not for names that must be unique across
 * processes or runs (databases, temp files): those want randomUUID(), which a fixed seed would repeat.
 *
 * The sequence is the one every earlier copy in the tests produced (test/session, test/durability,
 * test/server/hostile), so a seed kept from before still replays the same run.
 */
export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [0, maxExclusive): an index into something of that length. */
  int(maxExclusive: number): number {
    return Math.floor(this.next() * maxExclusive);
  }

  /** An integer in [min, max], both ends included: a size or a count. */
  between(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error("pick from an empty list");
    return items[this.int(items.length)] as T;
  }

  /** A shuffled copy (Fisher–Yates); the input is left as it was. */
  shuffle<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      [out[i], out[j]] = [out[j] as T, out[i] as T];
    }
    return out;
  }

  /** `length` characters drawn from `alphabet` (default: lowercase letters and digits). */
  string(length: number, alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"): string {
    let out = "";
    for (let i = 0; i < length; i++) out += alphabet[this.int(alphabet.length)];
    return out;
  }

  /** An id shaped like pi's entry ids: `length` lowercase hex digits (default 8). */
  hexId(length = 8): string {
    return this.string(length, "0123456789abcdef");
  }

  /** A callback view (`() => number` in [0, 1)) for code that takes Math.random's shape. */
  asFunction(): () => number {
    return () => this.next();
  }
}
