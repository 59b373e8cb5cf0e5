/**
 * Which entries of a file are on the path to its leaf, from the index's parent positions: one walk
 * from the leaf up, O(path), at query time, so a leaf that moved (a rewind, a leaf marker appended)
 * is seen by the next search without re-indexing any entry. A parent chain that loops (a damaged
 * file) ends after as many steps as there are entries.
 */
export function pathPositions(parents: Buffer, leaf: number): Uint8Array {
  const count = parents.byteLength >> 2;
  const onPath = new Uint8Array(count);
  let at = leaf;
  for (let steps = 0; at >= 0 && at < count && steps < count && onPath[at] === 0; steps++) {
    onPath[at] = 1;
    at = parents.readInt32LE(at * 4);
  }
  return onPath;
}
