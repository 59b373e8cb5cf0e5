/**
 * Children of each entry of a `SessionTree`, in the order they were linked (storage order), as
 * singly linked lists over entry positions (slots): `first`, `last` and `next` are integer
 * arrays indexed by slot. A 200,000-entry chain costs three integers per entry instead of a
 * string-keyed map entry and a one-element array each, which a whole read paid for in time and,
 * mostly, in garbage collection.
 *
 * Children that name a parent not (yet) present wait in a list by the parent's id; when that
 * parent arrives they become the head of its list, in the order they came. Roots (parent null)
 * have a list of their own.
 */
export class ChildLists {
  /**
   * Typed arrays grown by doubling, `size` of them in use: the garbage collector never scans
   * them, which on a 200,000-entry read it would do at every collection for plain arrays.
   */
  private first: Int32Array<ArrayBuffer> = new Int32Array(INITIAL_SLOTS);
  private last: Int32Array<ArrayBuffer> = new Int32Array(INITIAL_SLOTS);
  private next: Int32Array<ArrayBuffer> = new Int32Array(INITIAL_SLOTS);
  private size = 0;
  private readonly roots: number[] = [];
  /** Children of parent ids no entry has (yet), by that id. */
  private readonly waiting = new Map<string, number[]>();

  /** A new slot, with no children yet; slots are added in order 0, 1, 2… */
  addSlot(id: string): void {
    const slot = this.size++;
    if (slot === this.first.length) this.grow();
    this.first[slot] = -1;
    this.last[slot] = -1;
    this.next[slot] = -1;
    if (this.waiting.size === 0) return;
    const early = this.waiting.get(id);
    if (early === undefined) return;
    this.waiting.delete(id);
    for (const child of early) this.appendTo(slot, child);
  }

  /**
   * Links `child` as the last child of the entry at `parentSlot` (-1 with `parentId` null: a root;
   * -1 with an id: a parent not present yet).
   */
  link(child: number, parentId: string | null, parentSlot: number): void {
    if (parentSlot >= 0) this.appendTo(parentSlot, child);
    else if (parentId === null) this.roots.push(child);
    else {
      const list = this.waiting.get(parentId);
      if (list) list.push(child);
      else this.waiting.set(parentId, [child]);
    }
  }

  /** The children's slots, in link order; same arguments as `link`. */
  slotsOf(parentId: string | null, parentSlot: number): number[] {
    if (parentSlot < 0) return (parentId === null ? this.roots : this.waiting.get(parentId))?.slice() ?? [];
    const out: number[] = [];
    for (let child = this.first[parentSlot] as number; child >= 0; child = this.next[child] as number)
      out.push(child);
    return out;
  }

  private grow(): void {
    const capacity = this.first.length * 2;
    this.first = grown(this.first, capacity);
    this.last = grown(this.last, capacity);
    this.next = grown(this.next, capacity);
  }

  private appendTo(parent: number, child: number): void {
    const tail = this.last[parent] as number;
    if (tail < 0) this.first[parent] = child;
    else this.next[tail] = child;
    this.last[parent] = child;
  }
}

/** Small: most trees are small, and a large one doubles its way up in a few steps. */
export const INITIAL_SLOTS = 16;

/** `array`'s values in a new array of `capacity` elements. */
export function grown(array: Int32Array, capacity: number): Int32Array<ArrayBuffer> {
  const bigger = new Int32Array(capacity);
  bigger.set(array);
  return bigger;
}
