// Where `npm test`'s time went: turbo's run summary (`--summarize`) as a table, slowest first.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const COARSE_CLOCK_MS = 1000;

/** The summary this run wrote: the newest one, written after it began. */
export function latestSummary(runsDir, since) {
  let files;
  try {
    files = readdirSync(runsDir).filter((f) => f.endsWith('.json'));
  } catch {
    return null;
  }
  const newest = files
    .map((f) => ({ f, at: statSync(join(runsDir, f)).mtimeMs }))
    // A file's mtime comes from the kernel's coarse clock, which can lag Date.now() by a tick.
    .filter((x) => x.at >= since - COARSE_CLOCK_MS)
    .sort((a, b) => b.at - a.at)[0];
  return newest ? JSON.parse(readFileSync(join(runsDir, newest.f), 'utf8')) : null;
}

/** Per package and task, slowest first, with the sum; cached tasks are marked as such. */
export function timeTable(summary) {
  const rows = (summary?.tasks ?? [])
    .filter((t) => t.execution && Number.isFinite(t.execution.endTime))
    .map((t) => ({
      name: `${t.package} ${t.task}`,
      seconds: (t.execution.endTime - t.execution.startTime) / 1000,
      result: t.cache?.status === 'HIT' ? 'cached' : t.execution.exitCode === 0 ? 'ok' : 'FAILED',
    }))
    .sort((a, b) => b.seconds - a.seconds);
  const width = Math.max(4, ...rows.map((r) => r.name.length));
  const lines = rows.map(
    (r) => `${r.name.padEnd(width)}  ${r.seconds.toFixed(1).padStart(8)} s  ${r.result}`,
  );
  const total = rows.reduce((s, r) => s + r.seconds, 0);
  return [
    `${'task'.padEnd(width)}  ${'time'.padStart(10)}  result`,
    ...lines,
    `${'sum of tasks'.padEnd(width)}  ${total.toFixed(1).padStart(8)} s`,
  ].join('\n');
}
