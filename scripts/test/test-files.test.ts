import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module of the repository's test runner, without types
import { longestFirst, recordedTimes } from '../../vitest.sequencer.mjs';
// @ts-expect-error: a plain ES module of the repository's test runner, without types
import { packageTable, slowestTable, suiteResult, testFiles } from '../test-files.mjs';

const dir = mkdtempSync(join(tmpdir(), 'outpost-test-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const root = '/repo';
const file = (path: string, start: number, seconds: number, tests: number, status = 'passed') => ({
  name: `${root}/${path}`,
  startTime: start,
  endTime: start + seconds * 1000,
  status,
  assertionResults: Array.from({ length: tests }, () => ({ status })),
});

/** vitest's JSON report, as the root config writes it. */
function report(name: string, results: unknown[]) {
  writeFileSync(join(dir, name), JSON.stringify({ numTotalTests: 0, testResults: results }));
}

describe("npm test's per-file times", () => {
  report('report.json', [
    file('services/controller/test/fuzz/rest.fuzz.test.ts', 1_000, 118.6, 4),
    file('scripts/test/two-hosts-faults.test.ts', 0, 330.2, 1),
    file('services/controller/test/domain/runs.test.ts', 120_000, 0.4, 12),
    file('scripts/test/join.test.ts', 331_000, 21.6, 16, 'failed'),
  ]);
  writeFileSync(join(dir, 'cut-short.json'), '{"testResults": [');
  const files = testFiles(dir, root);

  it('lists every file of the report slowest first, from the repository root, and skips a broken report', () => {
    expect(files.map((f: { file: string }) => f.file)).toEqual([
      'scripts/test/two-hosts-faults.test.ts',
      'services/controller/test/fuzz/rest.fuzz.test.ts',
      'scripts/test/join.test.ts',
      'services/controller/test/domain/runs.test.ts',
    ]);
    expect(files[0]).toMatchObject({ seconds: 330.2, tests: 1, status: 'passed' });
    expect(testFiles(join(dir, 'missing'), root)).toEqual([]);
  });

  it('prints the slowest files and each package with its span and its sum', () => {
    const slow = slowestTable(files, 2).split('\n');
    expect(slow).toHaveLength(3);
    expect(slow[1]).toMatch(/^scripts\/test\/two-hosts-faults\.test\.ts\s+330\.2 s\s+1$/);
    const pkgs = packageTable(files).split('\n');
    // scripts: first file from 0 s, last ends at 352.6 s; its files sum to 351.8 s.
    expect(pkgs[1]).toMatch(/^scripts\s+352\.6 s\s+351\.8 s\s+2\s+17$/);
    expect(pkgs[2]).toMatch(/^services\/controller\s+119\.4 s\s+119\.0 s\s+2\s+16$/);
  });

  it('meets the 900 s goal only with every test passed and the run within it', () => {
    const at = '2026-11-29T00:00:00.000Z';
    const ok = suiteResult({ files, wallSeconds: 880, status: 0, at });
    expect(ok.results[0]).toMatchObject({ figure: 880, goal: 900, met: true });
    expect(ok.results[0].context).toContain('33 tests in 4 files');
    expect(ok.results[1]).toMatchObject({ figure: 330.2, name: expect.stringContaining('two-hosts-faults') });
    expect(ok.files).toHaveLength(4);
    expect(suiteResult({ files, wallSeconds: 880, status: 1, at }).results[0].met).toBe(false);
    expect(suiteResult({ files, wallSeconds: 901, status: 0, at }).results[0].met).toBe(false);
  });

  it('starts the files the last run recorded as longest first, and the unrecorded ones after, in order', () => {
    const recorded = join(dir, 'test-suite.json');
    writeFileSync(
      recorded,
      JSON.stringify(suiteResult({ files, wallSeconds: 880, status: 0, at: '2026-11-29T00:00:00.000Z' })),
    );
    const times = recordedTimes(recorded);
    const spec = (path: string) => ({ moduleId: `${root}/${path}` });
    const order = longestFirst(
      [
        spec('services/controller/test/domain/runs.test.ts'),
        spec('new/test/a.test.ts'),
        spec('scripts/test/two-hosts-faults.test.ts'),
        spec('new/test/b.test.ts'),
        spec('services/controller/test/fuzz/rest.fuzz.test.ts'),
      ],
      times,
      root,
    ).map((s: { moduleId: string }) => s.moduleId.slice(root.length + 1));
    expect(order).toEqual([
      'scripts/test/two-hosts-faults.test.ts',
      'services/controller/test/fuzz/rest.fuzz.test.ts',
      'services/controller/test/domain/runs.test.ts',
      'new/test/a.test.ts',
      'new/test/b.test.ts',
    ]);
    expect(recordedTimes(join(dir, 'missing.json')).size).toBe(0);
  });
});
