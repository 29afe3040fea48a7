// The order `npm test` starts its test files in: longest first, by the per-file times of the last
// measured run (bench/results/test-suite.json, written by `npm test` and kept in git). A file that waits
// minutes on a network fault or a failsafe then runs beside the short ones instead of after them, so the
// run ends when the work does. Files without a recorded time keep vitest's own order, after the rest.
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BaseSequencer } from 'vitest/node';

const root = fileURLToPath(new URL('.', import.meta.url));

/** Seconds per test file (path from the repository root) from the last recorded run, or an empty map. */
export function recordedTimes(file = join(root, 'bench', 'results', 'test-suite.json')) {
  try {
    const json = JSON.parse(readFileSync(file, 'utf8'));
    return new Map((json.files ?? []).map((f) => [f.file, f.seconds]));
  } catch {
    return new Map();
  }
}

/** `specs` (vitest's, with an absolute moduleId) longest recorded time first; the rest keep their order. */
export function longestFirst(specs, times, from = root) {
  const time = (spec) => times.get(relative(from, spec.moduleId)) ?? -1;
  // Array.prototype.sort is stable: equal times (the unrecorded ones) keep the order they came in.
  return [...specs].sort((a, b) => time(b) - time(a));
}

export class LongestFirst extends BaseSequencer {
  async sort(files) {
    return longestFirst(await super.sort(files), recordedTimes());
  }
}
