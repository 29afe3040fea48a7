import type { ConditionLive, Samples } from './types.js';

/**
 * A source's readings over the last hours as a line, with the condition's start and stop values as
 * dashed lines, so a user sees how close the value runs to starting or stopping the generator.
 */
export function ConditionChart({
  samples,
  condition,
  unit,
  hours,
  nowSec,
}: {
  samples: Samples['samples'];
  condition: ConditionLive | undefined;
  unit: string | null;
  hours: number;
  nowSec: number;
}) {
  const W = 600;
  const H = 160;
  const pad = 40;
  const from = nowSec - hours * 3600;
  const known = samples.filter((s): s is { at: number; value: number } => s.value !== null);
  const levels = [...known.map((s) => s.value)];
  if (condition) levels.push(condition.start_value, condition.stop_value);
  const lo = levels.length ? Math.min(...levels) : 0;
  const hi = levels.length ? Math.max(...levels) : 1;
  const span = hi - lo || 1;
  const x = (at: number) => pad + ((at - from) / (hours * 3600)) * (W - pad);
  const y = (v: number) => H - 8 - ((v - lo) / span) * (H - 20);
  const path = known
    .map((s, i) => `${i === 0 ? 'M' : 'L'}${x(s.at).toFixed(1)},${y(s.value).toFixed(1)}`)
    .join(' ');
  const u = unit ? ` ${unit}` : '';
  const name = condition?.name ?? samples.length;
  return (
    <figure class="chart" data-testid={`condition-chart-${name}`}>
      <svg viewBox={`0 0 ${W} ${H + 18}`} role="img" aria-label={`Last ${hours} hours with thresholds`}>
        <line class="axis" x1={pad} y1={H} x2={W} y2={H} />
        <text x={0} y={12}>
          {hi.toFixed(1)}
        </text>
        <text x={0} y={H}>
          {lo.toFixed(1)}
        </text>
        <text x={pad} y={H + 14}>
          −{hours} h
        </text>
        <text x={W - 30} y={H + 14}>
          now
        </text>
        {condition ? (
          <>
            <line
              class="threshold threshold-start"
              data-testid="threshold-start"
              x1={pad}
              x2={W}
              y1={y(condition.start_value)}
              y2={y(condition.start_value)}
            >
              <title>{`start ${condition.start_value}${u}`}</title>
            </line>
            <line
              class="threshold threshold-stop"
              data-testid="threshold-stop"
              x1={pad}
              x2={W}
              y1={y(condition.stop_value)}
              y2={y(condition.stop_value)}
            >
              <title>{`stop ${condition.stop_value}${u}`}</title>
            </line>
          </>
        ) : null}
        {path ? <path class="series" data-testid="series" d={path} /> : null}
      </svg>
      <figcaption class="muted">
        {known.length} readings
        {condition ? ` · start at ${condition.start_value}${u}, stop at ${condition.stop_value}${u}` : ''}
      </figcaption>
    </figure>
  );
}
