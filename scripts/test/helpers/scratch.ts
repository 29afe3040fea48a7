import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { stopOrphanServer } from '../../src/embedded-db.js';
import { type Launched, signalGroup } from './processes.js';

/**
 * The DATA_DIRs and launchers a test file makes, torn down after its last test: launchers killed, then
 * any PostgreSQL a killed launcher left behind stopped, then the folders removed.
 */
export function scratchStacks(timeoutMs = 60_000): {
  dirs: string[];
  running: Launched[];
  tempDir: (tag: string) => string;
} {
  const dirs: string[] = [];
  const running: Launched[] = [];
  afterAll(async () => {
    for (const r of running) await signalGroup(r, 'SIGKILL', 5_000);
    for (const d of dirs) {
      await stopOrphanServer(d);
      rmSync(d, { recursive: true, force: true });
    }
  }, timeoutMs);
  const tempDir = (tag: string) => {
    const d = mkdtempSync(join(tmpdir(), `outpost-${tag}-`));
    dirs.push(d);
    return d;
  };
  return { dirs, running, tempDir };
}
