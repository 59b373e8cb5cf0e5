/**
 * Targets stated as absolute figures (a time, a rate), where pi has nothing to compare with: the
 * CLI's wall time, the viewer's first paint, the service's appends per second, a store's path read.
 * `Row` (results.ts) holds the figures measured beside pi, with targets as ratios.
 */
export interface Goal {
  /** The heading it is listed under in docs/benchmarks.md. */
  group: string;
  what: string;
  value: number;
  unit: "ms" | "s" | "appends/s" | "MiB";
  /** "≤ bound" for times and memory, "≥ bound" for rates. */
  bound: number;
  note?: string;
}

export function goalMet(goal: Goal): boolean {
  return goal.unit === "appends/s" ? goal.value >= goal.bound : goal.value <= goal.bound;
}

function figure(value: number, unit: Goal["unit"]): string {
  if (unit === "appends/s") return `${Math.round(value).toLocaleString("en-US")} appends/s`;
  const digits = value >= 100 ? 0 : value >= 10 ? 1 : 2;
  return `${value.toFixed(digits)} ${unit}`;
}

function boundText(goal: Goal): string {
  return `${goal.unit === "appends/s" ? "≥" : "≤"} ${figure(goal.bound, goal.unit)}`;
}

/** One line per goal for the targets list: met or not, the figure and the bound. */
export function goalLines(goals: readonly Goal[]): string[] {
  return goals.map(
    (goal) =>
      `- ${goalMet(goal) ? "✅" : "❌"} ${goal.group} — ${goal.what}: ${figure(goal.value, goal.unit)} (target ${boundText(goal)})`,
  );
}

/** The goals as a Markdown table, grouped as listed. */
export function goalTable(goals: readonly Goal[]): string {
  return [
    "| group | measure | figure | target | met | note |",
    "|---|---|--:|---|---|---|",
    ...goals.map(
      (goal) =>
        `| ${goal.group} | ${goal.what} | ${figure(goal.value, goal.unit)} | ${boundText(goal)} | ${goalMet(goal) ? "✅" : "❌"} | ${goal.note ?? ""} |`,
    ),
  ].join("\n");
}
