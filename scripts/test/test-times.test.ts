import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module of the repository's test runner, without types
import { latestSummary, timeTable } from '../test-times.mjs';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const task = (pkg: string, name: string, seconds: number, exitCode = 0, cache = 'MISS') => ({
  package: pkg,
  task: name,
  cache: { status: cache },
  execution: { startTime: 1_000_000, endTime: 1_000_000 + seconds * 1000, exitCode },
});

describe("npm test's time table", () => {
  it('lists every task slowest first, marks failures and cached tasks, and sums them', () => {
    const table: string = timeTable({
      tasks: [
        task('@outpost/contracts', 'test', 12.5),
        task('@outpost/scripts', 'test', 640.25, 1),
        task('@outpost/controller', 'test', 410),
        task('@outpost/ui', 'lint', 0.4, 0, 'HIT'),
        { package: '@outpost/dashboard', task: 'test', execution: null },
      ],
    });
    const lines = table.split('\n');
    expect(lines[1]).toMatch(/^@outpost\/scripts test\s+640\.3 s {2}FAILED$/);
    expect(lines[2]).toMatch(/^@outpost\/controller test\s+410\.0 s {2}ok$/);
    expect(lines[3]).toMatch(/^@outpost\/contracts test\s+12\.5 s {2}ok$/);
    expect(lines[4]).toMatch(/^@outpost\/ui lint\s+0\.4 s {2}cached$/);
    // A task that never ran (its dependency failed) has no time to show.
    expect(table).not.toContain('dashboard');
    expect(lines.at(-1)).toMatch(/^sum of tasks\s+1063\.2 s$/);
  });

  it("reads the summary this run wrote, not an earlier run's", () => {
    const dir = mkdtempSync(join(tmpdir(), 'outpost-turbo-runs-'));
    dirs.push(dir);
    const since = Date.now();
    writeFileSync(join(dir, 'old.json'), JSON.stringify({ id: 'old', tasks: [] }));
    utimesSync(join(dir, 'old.json'), (since - 60_000) / 1000, (since - 60_000) / 1000);
    expect(latestSummary(dir, since)).toBeNull();
    writeFileSync(join(dir, 'new.json'), JSON.stringify({ id: 'new', tasks: [] }));
    expect(latestSummary(dir, since)?.id).toBe('new');
    expect(latestSummary(join(dir, 'missing'), since)).toBeNull();
  });
});
