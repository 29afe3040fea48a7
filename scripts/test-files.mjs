// The slowest test files of an `npm test` run: each package's vitest JSON report (written to the folder
// `npm test` names in OUTPOST_TEST_TIMES_DIR, see vitest.shared.mjs), as one table across packages and
// as a result file for bench/REPORT.md.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Every test file of every report in `dir`: path from the repository root, seconds, tests, status. */
export function testFiles(dir, root) {
  let names;
  try {
    names = readdirSync(dir).filter((f) => f.endsWith('.json'));
  } catch {
    return [];
  }
  const files = [];
  for (const name of names) {
    let report;
    try {
      report = JSON.parse(readFileSync(join(dir, name), 'utf8'));
    } catch {
      continue; // a package whose run was cut short leaves no whole report
    }
    for (const r of report.testResults ?? []) {
      if (!Number.isFinite(r.startTime) || !Number.isFinite(r.endTime)) continue;
      files.push({
        file: relative(root, r.name),
        start: r.startTime,
        end: r.endTime,
        seconds: (r.endTime - r.startTime) / 1000,
        tests: (r.assertionResults ?? []).length,
        status: r.status,
      });
    }
  }
  return files.sort((a, b) => b.seconds - a.seconds);
}

/** The package a test file belongs to: its path up to the `test` folder (services/controller, scripts...). */
export function packageOf(file) {
  const at = file.split('/').indexOf('test');
  return at > 0 ? file.split('/').slice(0, at).join('/') : file;
}

/**
 * Per package, longest first: the time from its first file's start to its last file's end (files of
 * several packages run at once, so these overlap) and the sum of its files' times.
 */
export function packageTable(files) {
  const by = new Map();
  for (const f of files) {
    const p = by.get(packageOf(f.file)) ?? { start: Infinity, end: -Infinity, sum: 0, files: 0, tests: 0 };
    p.start = Math.min(p.start, f.start);
    p.end = Math.max(p.end, f.end);
    p.sum += f.seconds;
    p.files += 1;
    p.tests += f.tests;
    by.set(packageOf(f.file), p);
  }
  const rows = [...by].map(([name, p]) => ({ name, span: (p.end - p.start) / 1000, ...p }));
  if (rows.length === 0) return '(no per-file times were written)';
  rows.sort((a, b) => b.sum - a.sum);
  const width = Math.max(7, ...rows.map((r) => r.name.length));
  return [
    `${'package'.padEnd(width)}  ${'first to last'.padStart(13)}  ${'sum of files'.padStart(12)}  files  tests`,
    ...rows.map(
      (r) =>
        `${r.name.padEnd(width)}  ${`${r.span.toFixed(1)} s`.padStart(13)}  ${`${r.sum.toFixed(1)} s`.padStart(12)}  ${String(r.files).padStart(5)}  ${String(r.tests).padStart(5)}`,
    ),
  ].join('\n');
}

/** The `n` slowest files as a text table. */
export function slowestTable(files, n = 10) {
  const rows = files.slice(0, n);
  if (rows.length === 0) return '(no per-file times were written)';
  const width = Math.max(4, ...rows.map((r) => r.file.length));
  return [
    `${'file'.padEnd(width)}  ${'time'.padStart(10)}  tests`,
    ...rows.map((r) => `${r.file.padEnd(width)}  ${r.seconds.toFixed(1).padStart(8)} s  ${r.tests}`),
  ].join('\n');
}

/** The run as bench/REPORT.md rows: the whole run against its goal, and the slowest files. */
export function suiteResult({ files, wallSeconds, status, at, n = 10 }) {
  const tests = files.reduce((s, f) => s + f.tests, 0);
  return {
    bench: 'test-suite',
    at,
    results: [
      {
        name: '`CI=true npm test` after its pretest step: lint, typecheck and every test file',
        issue: 45,
        figure: Math.round(wallSeconds),
        unit: 's',
        goal: 900,
        goal_text: '≤ 900 s',
        ratio: Number((wallSeconds / 900).toFixed(3)),
        met: status === 0 && wallSeconds <= 900,
        context: `${tests} tests in ${files.length} files; exit status ${status}`,
      },
      ...files.slice(0, n).map((f, i) => ({
        name: `slowest test file ${i + 1}: ${f.file}`,
        issue: 45,
        figure: Number(f.seconds.toFixed(1)),
        unit: 's',
        context: `${f.tests} tests, ${f.status}`,
      })),
    ],
    // Every file's time: the order the next run starts its files in (vitest.sequencer.mjs).
    files: files.map((f) => ({ file: f.file, seconds: Number(f.seconds.toFixed(1)) })),
  };
}
