// Percentiles and the result table.

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
