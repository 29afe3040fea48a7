// Percentiles and the result table.
import { readFileSync } from 'node:fs';

/** The q-quantile (0..1) of a list of numbers, nearest rank; NaN when empty. */
export function quantile(values, q) {
  if (values.length === 0) return Number.NaN;
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

export function summarize(values) {
  return {
    samples: values.length,
    p50_ms: round(quantile(values, 0.5)),
    p99_ms: round(quantile(values, 0.99)),
    max_ms: round(values.length ? Math.max(...values) : Number.NaN),
  };
}

export const round = (x, digits = 3) => (Number.isFinite(x) ? Number(x.toFixed(digits)) : null);

/**
 * ratio is figure/goal for an absolute goal (≤ 1 meets a "lower is better" goal) and
 * controller/reference for a relative one (the goal is then a bound on that ratio).
 */
export function verdict(ratio, goal, better) {
  if (ratio === null || !Number.isFinite(ratio)) return { ratio: null, met: false };
  return { ratio: round(ratio), met: better === 'higher' ? ratio >= goal : ratio <= goal };
}

export function printTable(rows) {
  const header = ['benchmark', 'controller', 'reference', 'goal', 'ratio', 'met'];
  const lines = rows.map((r) => [
    r.name,
    r.figure === null ? 'n/a' : `${r.figure} ${r.unit}`,
    r.reference ?? '',
    r.goal_text ?? '',
    r.ratio === null ? 'n/a' : String(r.ratio),
    r.status ?? (r.goal_text ? (r.met ? 'yes' : 'NO') : ''),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const fmt = (cells) =>
    cells
      .map((c, i) => c.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  process.stdout.write(`\n${fmt(header)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}\n`);
  for (const l of lines) process.stdout.write(`${fmt(l)}\n`);
}

/**
 * CPU time (user + system, ms) a child process has used so far, from /proc (Linux); null elsewhere.
 * Unlike latency, CPU per cycle hardly moves when other work shares the cores.
 */
export function cpuMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return null;
  }
}
/** USER_HZ: 100 on every Linux this runs on (getconf CLK_TCK). */
const CLOCK_TICKS = 100;
