import { describe, expect, it } from 'vitest';
import { sortRows } from '../src/components/sort-table.js';
import { formatAge, formatDuration } from '../src/format.js';
import { fitZoom, formatLat, formatLon, gridLines, gridStep, project, unproject } from '../src/geo.js';

describe('map geometry', () => {
  it('projects like map tiles do and inverts', () => {
    expect(project(0, 0, 0)).toEqual({ x: 128, y: 128 });
    const p = project(47.52704, -122.29995, 11);
    const back = unproject(p.x, p.y, 11);
    expect(back.lat).toBeCloseTo(47.52704, 6);
    expect(back.lon).toBeCloseTo(-122.29995, 6);
  });

  it('chooses round grid spacings and lists the lines in view', () => {
    expect(gridStep(0.6)).toBe(0.2);
    expect(gridStep(40)).toBe(10);
    expect(gridLines(-122.55, -122.05, 0.2)).toEqual([-122.4, -122.2]);
  });

  it('zooms out until every position fits', () => {
    const seattle = { lat: 47.45, lon: -122.31 };
    const london = { lat: 51.47, lon: -0.45 };
    expect(fitZoom([seattle], 480, 300, 11)).toBe(11);
    const z = fitZoom([seattle, london], 480, 300, 11);
    const span = (zoom: number) => project(london.lat, london.lon, zoom).x - project(seattle.lat, seattle.lon, zoom).x;
    expect(span(z)).toBeLessThanOrEqual(480 * 0.8);
    expect(span(z + 1)).toBeGreaterThan(480 * 0.8);
  });

  it('writes coordinates with hemisphere letters', () => {
    expect(formatLat(-33.9461, 2)).toBe('33.95° S');
    expect(formatLon(-122.29995)).toBe('122.29995° W');
  });
});

describe('tables', () => {
  const cols = [{ key: 'age', title: 'Age', value: (r: { age: number | null }) => r.age }];
  it('sorts numbers both ways with unknown values last', () => {
    const rows = [{ age: 3 }, { age: null }, { age: 1 }];
    expect(sortRows(rows, cols, { key: 'age', dir: 'asc' }).map((r) => r.age)).toEqual([1, 3, null]);
    expect(sortRows(rows, cols, { key: 'age', dir: 'desc' }).map((r) => r.age)).toEqual([3, 1, null]);
  });

  it('formats durations and ages for a narrow cell', () => {
    expect(formatDuration(3725)).toBe('1 h 2 min');
    expect(formatAge(0.43)).toBe('0.4 s');
    expect(formatAge(null)).toBe('–');
  });
});
