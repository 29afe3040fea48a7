import type { RunRecord } from './types.js';

const DAY = 86400;

/** Seconds run per local calendar day for the last `days` days, oldest first. */
export function runtimePerDay(
  runs: RunRecord[],
  days: number,
  nowSec: number,
): { day: string; seconds: number }[] {
  const out: { day: string; seconds: number }[] = [];
  const key = (sec: number) => new Date(sec * 1000).toLocaleDateString('en-CA');
  const index = new Map<string, number>();
  for (let i = days - 1; i >= 0; i--) {
    const k = key(nowSec - i * DAY);
    if (!index.has(k)) {
      index.set(k, out.length);
      out.push({ day: k, seconds: 0 });
    }
  }
  for (const r of runs) {
    const secs = r.duration_seconds ?? (r.stop_time === null ? Math.max(0, nowSec - r.start_time) : 0);
    const i = index.get(key(r.start_time));
    if (i !== undefined && out[i]) out[i].seconds += secs;
  }
  return out;
}

export function RuntimeChart({ data }: { data: { day: string; seconds: number }[] }) {
  const W = 600;
  const H = 180;
  const pad = 28;
  const maxH = Math.max(1, ...data.map((d) => d.seconds / 3600));
  const bw = (W - pad) / Math.max(1, data.length);
  const total = data.reduce((a, d) => a + d.seconds, 0);
  return (
    <figure class="chart" data-testid="runtime-chart">
      <svg viewBox={`0 0 ${W} ${H + 20}`} role="img" aria-label="Runtime per day, hours">
        <line class="axis" x1={pad} y1={H} x2={W} y2={H} />
        <text x={0} y={12}>
          {maxH.toFixed(1)} h
        </text>
        <text x={0} y={H}>
          0
        </text>
        {data.map((d, i) => {
          const h = (d.seconds / 3600 / maxH) * (H - 16);
          return (
            <g key={d.day}>
              <rect class="bar" x={pad + i * bw + 1} y={H - h} width={Math.max(1, bw - 2)} height={h}>
                <title>{`${d.day}: ${(d.seconds / 3600).toFixed(2)} h`}</title>
              </rect>
              {i % Math.ceil(data.length / 6) === 0 ? (
                <text x={pad + i * bw} y={H + 14}>
                  {d.day.slice(5)}
                </text>
              ) : null}
            </g>
          );
        })}
      </svg>
      <figcaption class="muted">
        Runtime per day · {(total / 3600).toFixed(2)} h in {data.length} days
      </figcaption>
    </figure>
  );
}
