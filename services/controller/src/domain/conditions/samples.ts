import { SOURCE_NAMES, type SourceName } from '@outpost/contracts/conditions';

/** How far back the console's chart reaches, and the spacing that keeps it small. */
export const SAMPLE_WINDOW_MS = 6 * 3_600_000;
const SPACING_MS = 30_000;

/**
 * Recent readings per source, in memory (a restart starts the chart over): at most one sample per 30 s
 * per source, the newest one replacing a closer one, over the last 6 hours (≤ 720 per source).
 */
export class SampleHistory {
  private readonly samples = new Map<SourceName, { at: number; value: number | null }[]>(
    SOURCE_NAMES.map((n) => [n, []]),
  );

  add(name: SourceName, value: number | null, at: number): void {
    const list = this.samples.get(name) ?? [];
    const last = list.at(-1);
    if (last && at - last.at < SPACING_MS && list.length > 1) list[list.length - 1] = { at, value };
    else list.push({ at, value });
    while (list.length > 0 && (list[0]?.at ?? at) < at - SAMPLE_WINDOW_MS) list.shift();
    this.samples.set(name, list);
  }

  clear(name: SourceName): void {
    this.samples.set(name, []);
  }

  since(name: SourceName, from: number): { at: number; value: number | null }[] {
    return (this.samples.get(name) ?? []).filter((s) => s.at >= from);
  }
}
