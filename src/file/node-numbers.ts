import { KIND } from "./sidecar-index-kind.js";
import type { SessionIndex } from "./sidecar-index-model.js";

/**
 * A shape's node numbers over a sidecar index's entry numbers: the same but for hidden leaf markers
 * (a marker no entry was appended under), which core's tree keeps out of its entries, as the shape
 * does. Typed arrays, and none at all when nothing is hidden (the usual case).
 */
export class NodeNumbers {
  private constructor(
    /** Node count. */
    readonly count: number,
    /** Per entry: its node number, -1 when hidden; null: the identity. */
    private readonly nodeOfEntry: Int32Array | null,
    /** Per node: its entry number; null: the identity. */
    private readonly entryOfNode: Int32Array | null,
  ) {}

  /** For an index whose parents all come before their children. */
  static of(index: SessionIndex): NodeNumbers {
    const count = index.ids.count;
    const hasChild = new Uint8Array(count);
    for (let n = 0; n < count; n++) {
      const parent = index.parents[n] as number;
      if (parent >= 0) hasChild[parent] = 1;
    }
    let hidden = 0;
    for (let n = 0; n < count; n++) if (index.kinds[n] === KIND.leafMarker && hasChild[n] === 0) hidden++;
    if (hidden === 0) return new NodeNumbers(count, null, null);
    const nodeOfEntry = new Int32Array(count);
    const entryOfNode = new Int32Array(count - hidden);
    let node = 0;
    for (let n = 0; n < count; n++) {
      const isHidden = index.kinds[n] === KIND.leafMarker && hasChild[n] === 0;
      nodeOfEntry[n] = isHidden ? -1 : node;
      if (!isHidden) entryOfNode[node++] = n;
    }
    return new NodeNumbers(count - hidden, nodeOfEntry, entryOfNode);
  }

  isShown(entry: number): boolean {
    return this.nodeOfEntry === null || (this.nodeOfEntry[entry] as number) >= 0;
  }

  nodeOf(entry: number): number {
    return this.nodeOfEntry === null ? entry : (this.nodeOfEntry[entry] as number);
  }

  entryOf(node: number): number {
    return this.entryOfNode === null ? node : (this.entryOfNode[node] as number);
  }

  /** The ids of the nodes, in node order. */
  ids(index: SessionIndex): string[] {
    const ids = new Array<string>(this.count);
    for (let node = 0; node < this.count; node++) ids[node] = index.ids.at(this.entryOf(node));
    return ids;
  }

  /** The ids of the nodes as one text and where each ends (the index's own when nothing is hidden). */
  idTable(index: SessionIndex): { text: string; ends: ArrayLike<number> } {
    if (this.entryOfNode === null) return { text: index.ids.text, ends: index.ids.ends };
    const ids = this.ids(index);
    const ends = new Uint32Array(this.count);
    let end = 0;
    for (let node = 0; node < this.count; node++) {
      end += (ids[node] as string).length;
      ends[node] = end;
    }
    return { text: ids.join(""), ends };
  }

  /** Each node's parent node, -1 for a root (a hidden marker is never a parent: it has no child). */
  parents(index: SessionIndex): Int32Array {
    const parents = new Int32Array(this.count);
    for (let node = 0; node < this.count; node++) {
      const parent = index.parents[this.entryOf(node)] as number;
      parents[node] = parent < 0 ? -1 : this.nodeOf(parent);
    }
    return parents;
  }

  /** The looks of the shown entries, as the shape's string of look characters. */
  looks(entryLooks: Uint8Array): string {
    const chars = new Uint8Array(this.count);
    for (let node = 0; node < this.count; node++)
      chars[node] = 97 + (entryLooks[this.entryOf(node)] as number);
    return Buffer.from(chars.buffer, chars.byteOffset, chars.length).toString("latin1");
  }
}
