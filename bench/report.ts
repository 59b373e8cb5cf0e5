import { cpus, loadavg, totalmem } from "node:os";
import { meetsTarget, type Row, ratioOf } from "./results.js";

function num(value: number, unit: Row["unit"]): string {
  if (unit === "entries/s") return Math.round(value).toLocaleString("en-US");
  if (unit === "MiB") return value.toFixed(0);
  if (value >= 100) return value.toFixed(0);
  if (value >= 1) return value.toFixed(1);
  return value.toPrecision(2);
}

export function ratioText(row: Row): string {
  const ratio = ratioOf(row);
  if (ratio === null) return "—";
  return ratio >= 10 ? `${ratio.toFixed(0)}×` : `${ratio.toFixed(2)}×`;
}

function targetText(row: Row): string {
  const met = meetsTarget(row);
  if (met === null) return "";
  return `≥ ${row.target}× ${met ? "✅" : "❌"}`;
}

/** The results as a Markdown table, grouped. */
export function markdownTable(rows: readonly Row[]): string {
  const out: string[] = [
    "| measure | unit | ours | pi 0.73.1 | pi ÷ ours (rates: ours ÷ pi) | target | physical reference / note |",
    "|---|---|--:|--:|--:|---|---|",
  ];
  let group = "";
  for (const row of rows) {
    if (row.group !== group) {
      group = row.group;
      out.push(`| **${group}** | | | | | | |`);
    }
    const notes = [row.physical, row.note].filter(Boolean).join("; ");
    out.push(
      `| ${row.what} | ${row.unit} | ${num(row.ours, row.unit)} | ${row.pi === null ? "—" : num(row.pi, row.unit)} | ${ratioText(row)} | ${targetText(row)} | ${notes} |`,
    );
  }
  return out.join("\n");
}

/** A plain-text table for the terminal. */
export function consoleTable(rows: readonly Row[]): string {
  const lines: string[] = [];
  let group = "";
  for (const row of rows) {
    if (row.group !== group) {
      group = row.group;
      lines.push(`\n${group}`);
    }
    const pi = row.pi === null ? "—" : num(row.pi, row.unit);
    const target = targetText(row);
    lines.push(
      `  ${row.what.padEnd(58)} ${num(row.ours, row.unit).padStart(10)} ${pi.padStart(10)} ${row.unit.padEnd(9)} ${ratioText(row).padStart(7)} ${target}`,
    );
  }
  return lines.join("\n");
}

/** One line per target of the issue: met or not, with the measured figure. */
export function targetSummary(rows: readonly Row[], appendCeiling: number): string[] {
  const lines = rows
    .filter((row) => row.target !== undefined && row.pi !== null)
    .map((row) => {
      const met = meetsTarget(row) ? "✅" : "❌";
      return `- ${met} ${row.group} — ${row.what}: ${ratioText(row)} (target ≥ ${row.target}×)`;
    });
  const memory = rows.filter((row) => row.unit === "MiB");
  if (memory.length > 0) {
    const met = memory.every((row) => row.pi === null || row.ours < row.pi) ? "✅" : "❌";
    const figures = memory
      .map((row) => `${row.what} ${row.ours.toFixed(0)} MiB (pi ${row.pi?.toFixed(0) ?? "—"} MiB)`)
      .join(", ");
    lines.push(`- ${met} lower peak memory than pi: ${figures}`);
  }
  const grouped = rows.find((row) => row.what.startsWith("group commit"));
  if (grouped) {
    const met = grouped.ours >= 50_000 ? "✅" : "❌";
    lines.push(
      `- ${met} durable appends with group commit: ${Math.round(grouped.ours).toLocaleString("en-US")} entries/s ` +
        `(target ≥ 50,000; this machine's CPU ceiling for building and encoding entries in this run: ${Math.round(appendCeiling).toLocaleString("en-US")} entries/s)`,
    );
  }
  return lines;
}

export function environment(): string {
  const cpu = cpus()[0]?.model ?? "unknown CPU";
  const load = loadavg()
    .map((l) => l.toFixed(1))
    .join(", ");
  const memory = (totalmem() / 2 ** 30).toFixed(0);
  return `${cpu}, ${cpus().length} cores, ${memory} GiB RAM, Node ${process.version}, ${process.platform}; load average at the end of the run: ${load}`;
}
