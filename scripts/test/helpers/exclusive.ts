import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sleep } from './processes.js';

/**
 * A lock between test files that share something outside the repository and run at the same time
 * (`npm test` runs several files at once): the container tests share podman's images and the
 * debootstrapped base in one cache. mkdir is atomic, so the first file to make the folder holds the
 * lock; a holder that died without releasing it is found by its pid and its lock taken over.
 * Resolves to the function that releases it.
 */
export async function exclusive(name: string, timeoutMs = 45 * 60_000): Promise<() => void> {
  const dir = join(tmpdir(), `outpost-test-lock-${name}`);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      mkdirSync(dir);
      writeFileSync(join(dir, 'pid'), String(process.pid));
      return () => rmSync(dir, { recursive: true, force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    if (!holderAlive(dir)) rmSync(dir, { recursive: true, force: true });
    else if (Date.now() > deadline) throw new Error(`the ${name} lock was held for over ${timeoutMs} ms`);
    else await sleep(500);
  }
}

function holderAlive(dir: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(join(dir, 'pid'), 'utf8'));
  } catch {
    // Made but not yet written: the holder is between its two calls.
    return true;
  }
  if (!pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
