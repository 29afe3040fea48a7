import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hashPassword, makeUser, readUsersFile, verifyPassword, writeUsersFile } from '../src/users.js';

const dir = mkdtempSync(join(tmpdir(), 'outpost-users-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('users file', () => {
  it('hashes with a random salt and verifies only the right password', async () => {
    const a = hashPassword('s3cret');
    const b = hashPassword('s3cret');
    expect(a.salt).toMatch(/^[0-9a-f]{32}$/);
    expect(a.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(a.hash).not.toBe(b.hash);
    expect(await verifyPassword(a, 's3cret')).toBe(true);
    expect(await verifyPassword(a, 's3cret ')).toBe(false);
    expect(await verifyPassword(a, Buffer.from('s3cret'))).toBe(true);
  });

  it('writes atomically with mode 0600 and reads back what it wrote, never the password', () => {
    const path = join(dir, 'nested', 'mqtt-users.json');
    const users = [
      makeUser('controller', 'controller', 'main', 'pw1'),
      makeUser('node-a', 'relaynode', 'a', 'pw2'),
    ];
    writeUsersFile(path, users);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, 'utf8')).not.toContain('pw1');
    expect(readUsersFile(path)).toEqual({ users });
  });

  it('names the file and the bad field when the file is wrong', () => {
    const path = join(dir, 'bad.json');
    writeFileSync(
      path,
      JSON.stringify({ users: [{ username: 'x', role: 'root', id: 'a', salt: '00', hash: '00' }] }),
    );
    expect(() => readUsersFile(path)).toThrow(/bad\.json: users\.0\.role: .*users\.0\.salt: must be 32 hex/);
    writeFileSync(path, '{not json');
    expect(() => readUsersFile(path)).toThrow(/bad\.json: /);
    expect(() => readUsersFile(join(dir, 'missing.json'))).toThrow(/missing\.json: file not found/);
  });

  it('refuses "*" as the id of a relay node and duplicate usernames', () => {
    expect(() => makeUser('n', 'relaynode', '*', 'pw')).toThrow(/id "\*" is only allowed/);
    expect(() => makeUser('n', 'relaynode', 'a/b', 'pw')).toThrow(/one topic level/);
    const u = makeUser('dup', 'viewer', '*', 'pw');
    expect(() => writeUsersFile(join(dir, 'dup.json'), [u, u])).toThrow(/usernames must be unique/);
  });
});
