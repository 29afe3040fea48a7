import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { reachableBinaries, runAsNotice } from '../src/embedded-db.js';

/**
 * Started as root, the embedded PostgreSQL runs as another user from a copy of its binaries in the temp
 * directory. Another local user must not be able to put their own `postgres` there: a name planted
 * first (a link, a folder of theirs) is never followed or reused.
 */
const asRoot = process.getuid?.() === 0;
if (!asRoot) console.log('embedded-db-binaries: skipped, the copy for another user is made only as root');

const NOBODY = { uid: 65534, gid: 65534, name: 'nobody' };
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A fake install the user cannot reach (0700 root), and the temp directory the copy goes to. */
function setup(): { bin: { postgres: string; initdb: string }; tmp: string; planted: string } {
  const base = mkdtempSync(join(tmpdir(), 'outpost-pgbin-test-'));
  dirs.push(base);
  const native = join(base, 'install', 'native');
  mkdirSync(join(native, 'bin'), { recursive: true });
  for (const name of ['postgres', 'initdb']) {
    writeFileSync(join(native, 'bin', name), `#!/bin/sh\necho real-${name}\n`, { mode: 0o755 });
  }
  chmodSync(join(base, 'install'), 0o700);
  const tmp = join(base, 'tmp');
  mkdirSync(tmp, { mode: 0o1777 });
  chmodSync(tmp, 0o1777);
  const planted = join(
    tmp,
    `outpost-postgres-${createHash('sha256').update(native).digest('hex').slice(0, 12)}`,
  );
  return {
    bin: { postgres: join(native, 'bin', 'postgres'), initdb: join(native, 'bin', 'initdb') },
    tmp,
    planted,
  };
}

/** An evil copy with the marker, in `dir`. */
function evil(dir: string): void {
  mkdirSync(join(dir, 'bin'), { recursive: true });
  writeFileSync(join(dir, 'bin', 'postgres'), '#!/bin/sh\necho evil\n', { mode: 0o755 });
  writeFileSync(join(dir, '.complete'), '');
}

function expectOurCopy(got: { postgres: string }, _planted: string): void {
  expect(execFileSync(got.postgres, { encoding: 'utf8' }).trim()).toBe('real-postgres');
  const folder = dirname(dirname(got.postgres));
  const st = lstatSync(folder);
  expect(st.isSymbolicLink()).toBe(false);
  expect([st.uid, st.mode & 0o022]).toEqual([0, 0]);
}

describe.skipIf(!asRoot)('the binary copy for the postgres user', () => {
  it('a link planted at the copy’s name (even to a root-owned folder with the marker) is not followed', () => {
    const { bin, tmp, planted } = setup();
    const target = join(tmp, '..', 'root-owned-evil');
    evil(target);
    symlinkSync(target, planted);
    const got = reachableBinaries(bin, NOBODY, tmp);
    expectOurCopy(got, planted);
    expect(readFileSync(join(target, 'bin', 'postgres'), 'utf8')).toContain('evil');
  });

  it('a folder another user made first is not reused', () => {
    const { bin, tmp, planted } = setup();
    evil(planted);
    chownSync(planted, NOBODY.uid, NOBODY.gid);
    const got = reachableBinaries(bin, NOBODY, tmp);
    expectOurCopy(got, planted);
  });

  it('a root-owned folder that others may write is not reused', () => {
    const { bin, tmp, planted } = setup();
    evil(planted);
    chmodSync(planted, 0o777);
    expectOurCopy(reachableBinaries(bin, NOBODY, tmp), planted);
  });

  it('a good copy is made once and reused', () => {
    const { bin, tmp, planted } = setup();
    const first = reachableBinaries(bin, NOBODY, tmp);
    expect(first.postgres.startsWith(`${planted}/`)).toBe(true);
    expect(reachableBinaries(bin, NOBODY, tmp)).toEqual(first);
  });
});

describe('the user PostgreSQL runs as under root', () => {
  it('says so in one line when it is the distribution’s postgres user', () => {
    const line = runAsNotice('postgres') ?? '';
    expect(line.split('\n')).toHaveLength(1);
    expect(line).toMatch(/runs as the system user postgres/);
    expect(runAsNotice('outpost')).toBeNull();
  });
});
