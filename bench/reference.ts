import { readFileSync } from "node:fs";
import { mb, median, timeOnce } from "./stats.js";

export interface ParseReference {
  bytes: number;
  /** Milliseconds to JSON.parse every line of the file (lines already in memory as strings). */
  parseMs: number;
  /**
   * The same with every value kept, as any reader that hands out the entries must: the values then
   * survive the young generation and the collector copies them (the difference to `parseMs`).
   */
  keptParseMs: number;
  /** Milliseconds to read the file into memory. */
  readMs: number;
  parseMiBs: number;
}

/** The physical floor of "open": reading the bytes, and JSON.parse of every line, nothing else. */
export function parseReference(path: string, runs: number): ParseReference {
  const readTimes: number[] = [];
  const parseTimes: number[] = [];
  const keptTimes: number[] = [];
  for (let i = 0; i < runs; i++) {
    let text = "";
    readTimes.push(
      timeOnce(() => {
        text = readFileSync(path, "utf8");
      }),
    );
    const lines = text.split("\n").filter((line) => line.length > 0);
    parseTimes.push(
      timeOnce(() => {
        for (const line of lines) JSON.parse(line);
      }),
    );
    keptTimes.push(
      timeOnce(() => {
        const kept: unknown[] = [];
        for (const line of lines) kept.push(JSON.parse(line));
      }),
    );
  }
  const bytes = readFileSync(path).length;
  const parseMs = median(parseTimes);
  return {
    bytes,
    parseMs,
    keptParseMs: median(keptTimes),
    readMs: median(readTimes),
    parseMiBs: mb(bytes) / (parseMs / 1000),
  };
}
