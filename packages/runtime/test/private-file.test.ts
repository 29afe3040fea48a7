import {
  existsSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writePrivateFile } from '../src/private-file.js';

const dir = mkdtempSync(join(tmpdir(), 'outpost-private-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('writePrivateFile', () => {
  it('writes through no link planted under the old fixed temporary names, and replaces a link at the path itself', () => {
    const victim = join(dir, 'victim');
    writeFileSync(victim, 'root-only\n', { mode: 0o600 });
    const path = join(dir, 'postgres-secrets.json');
    // Every name the writers used to create before renaming: fixed, or with this process's id.
    for (const name of [`${path}.tmp`, `${path}.${process.pid}.tmp`]) symlinkSync(victim, name);
    symlinkSync(victim, path);

    writePrivateFile(path, '{"postgres":{}}\n', 0o600);

    expect(readFileSync(victim, 'utf8')).toBe('root-only\n');
    expect(lstatSync(path).isSymbolicLink()).toBe(false);
    expect(readFileSync(path, 'utf8')).toBe('{"postgres":{}}\n');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    // No temporary file is left behind.
    expect(
      readdirSync(dir).filter(
        (f) => f.startsWith('postgres-secrets.json.') && !lstatSync(join(dir, f)).isSymbolicLink(),
      ),
    ).toEqual([]);
  });

  it('gives the exact mode whatever the umask, and a second write replaces the first', () => {
    const path = join(dir, 'ca.pem');
    const old = process.umask(0o077);
    try {
      writePrivateFile(path, 'first\n', 0o644);
      writePrivateFile(path, 'second\n', 0o644);
    } finally {
      process.umask(old);
    }
    expect(readFileSync(path, 'utf8')).toBe('second\n');
    expect(statSync(path).mode & 0o777).toBe(0o644);
    expect(existsSync(`${path}.tmp`)).toBe(false);
  });
});
