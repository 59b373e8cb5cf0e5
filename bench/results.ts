/** One measured figure: ours beside pi's, with the physical reference where one applies. */
export interface Row {
  group: string;
  what: string;
  unit: "ms" | "entries/s" | "MiB";
  ours: number;
  pi: number | null;
  /** Ratio (pi / ours for times and memory, ours / pi for rates) that the issue asks for. */
  target?: number;
  /** How far from the physical limit, in words (e.g. "1.3× JSON.parse of the whole file"). */
  physical?: string;
  note?: string;
}

export function ratioOf(row: Row): number | null {
  if (row.pi === null || row.ours === 0) return null;
  return row.unit === "entries/s" ? row.ours / row.pi : row.pi / row.ours;
}

export function meetsTarget(row: Row): boolean | null {
  const ratio = ratioOf(row);
  if (row.target === undefined || ratio === null) return null;
  return ratio >= row.target;
}
