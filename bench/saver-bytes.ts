/**
 * What a LangGraph MemorySaver holds, in bytes: its serialized checkpoints, metadata and writes
 * (`storage` and `writes`, nested records of strings and Uint8Arrays). Shared by bench/langgraph.ts
 * and bench/adapters.ts.
 */
export function memorySaverBytes(saver: { storage: unknown; writes: unknown }): number {
  let bytes = 0;
  const count = (value: unknown): void => {
    if (value instanceof Uint8Array) bytes += value.byteLength;
    else if (typeof value === "string") bytes += Buffer.byteLength(value);
    else if (value !== null && typeof value === "object")
      for (const inner of Object.values(value)) count(inner);
  };
  count(saver.storage);
  count(saver.writes);
  return bytes;
}
