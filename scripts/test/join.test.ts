import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { generateLeaseKeys } from '@outpost/runtime/lease-keys';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { applyJoin, makeJoinString } from '../src/join.js';
import { decodeJoin, encodeJoin, JoinError } from '../src/join-string.js';
import { controllerPublicKey, resolveSecrets } from '../src/secrets.js';
import { freePort, joinScript, launcherScript, root, until } from './helpers/processes.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'outpost-join-'));
  dirs.push(d);
  return d;
};

const sample = {
  mqtt_url: 'mqtt://192.0.2.10:1883',
  site: 'main',
  prefix: 'outpost',
  username: 'relaynode',
  password: 'p'.repeat(32),
  key: 'k'.repeat(43),
  controller_key: generateLeaseKeys().publicKey,
};

/** A join string's body with `payload`, under a checksum that matches it. */
const withBody = (payload: unknown) => {
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  const sum = createHash('sha256').update(body).digest().subarray(0, 8).toString('base64url');
  return `outpost-join-2.${body}.${sum}`;
};

describe('join string', () => {
  it('round-trips and survives surrounding whitespace', () => {
    expect(decodeJoin(`  ${encodeJoin(sample)}\n`)).toEqual(sample);
  });

  it.each([
    ['something else', /not an Outpost join string/],
    [`${encodeJoin(sample).slice(0, 40)}`, /damaged/],
    [withBody({ site: 'main' }), /damaged: mqtt_url/],
    [withBody({ ...sample, mqtt_url: 'mqtt://u:p@host:1883' }), /without credentials/],
    [withBody({ ...sample, controller_key: undefined }), /damaged: controller_key/],
    [`outpost-join-1.${Buffer.from(JSON.stringify(sample)).toString('base64url')}`, /earlier version/],
  ])('refuses %s with a clear message', (text, message) => {
    expect(() => decodeJoin(text)).toThrow(JoinError);
    expect(() => decodeJoin(text)).toThrow(message);
  });

  it('one changed character anywhere in the body is caught by the checksum, before any key is used', () => {
    const text = encodeJoin(sample);
    const body = text.slice('outpost-join-2.'.length, text.lastIndexOf('.'));
    for (const at of [0, Math.floor(body.length / 2), body.length - 1]) {
      const c = body[at] === 'A' ? 'B' : 'A';
      const changed = `outpost-join-2.${body.slice(0, at)}${c}${body.slice(at + 1)}${text.slice(text.lastIndexOf('.'))}`;
      expect(() => decodeJoin(changed)).toThrow(/checksum does not match/);
    }
  });

  it('refuses a plain broker URL while the site runs TLS, unless asked', () => {
    const dir = tempDir();
    const tls = { HOST: '0.0.0.0', TLS: 'on' };
    expect(() => makeJoinString(dir, tls, 'mqtt://198.51.100.7:1883')).toThrow(/runs TLS but mqtt:\/\/198/);
    const forced = decodeJoin(makeJoinString(dir, tls, 'mqtt://198.51.100.7:1883', { allowPlaintext: true }));
    expect(forced.mqtt_url).toBe('mqtt://198.51.100.7:1883');
    expect(decodeJoin(makeJoinString(dir, tls, 'mqtts://198.51.100.7:8883')).mqtt_url).toBe(
      'mqtts://198.51.100.7:8883',
    );
  });

  it('the controller host hands out its relay node key and account; applying it keeps the other secrets', () => {
    const controller = tempDir();
    const payload = decodeJoin(makeJoinString(controller, { MQTT_URL: 'mqtt://user:pw@broker.lan:1883' }));
    const { secrets } = resolveSecrets(controller, {});
    expect(payload).toMatchObject({
      mqtt_url: 'mqtt://broker.lan:1883',
      site: 'main',
      prefix: 'outpost',
      username: 'relaynode',
      password: secrets.mqtt.relaynode,
      key: secrets.RELAYNODE_API_SECRET,
      controller_key: controllerPublicKey(secrets),
    });

    const node = tempDir();
    const before = resolveSecrets(node, {}).secrets;
    applyJoin(node, encodeJoin(payload));
    const after = JSON.parse(readFileSync(join(node, 'secrets.json'), 'utf8'));
    expect(after.RELAYNODE_API_SECRET).toBe(secrets.RELAYNODE_API_SECRET);
    expect(after.mqtt.relaynode).toBe(secrets.mqtt.relaynode);
    expect(after.mqtt.viewer).toBe(before.mqtt.viewer);
    expect(after.JWT_SECRET).toBe(before.JWT_SECRET);
    // The relay node trusts the controller's lease key, never its own.
    expect(after.CONTROLLER_PUBLIC_KEY).toBe(controllerPublicKey(secrets));
    expect(controllerPublicKey(after)).toBe(controllerPublicKey(secrets));
    expect(after.join).toEqual({ mqtt_url: 'mqtt://broker.lan:1883', site: 'main', prefix: 'outpost' });
  });

  it('join-token names the broker given with --mqtt-url and warns about none', () => {
    const dir = tempDir();
    const res = spawnSync(process.execPath, [joinScript, 'token', '--mqtt-url', 'mqtt://198.51.100.7:1884'], {
      env: { PATH: process.env.PATH, DATA_DIR: dir, RELAYNODE_ID: 'shed', TLS: 'off' },
      encoding: 'utf8',
    });
    expect(res.status, res.stderr).toBe(0);
    expect(res.stderr).toBe('');
    expect(decodeJoin(res.stdout)).toMatchObject({ mqtt_url: 'mqtt://198.51.100.7:1884', site: 'shed' });
  });

  it('the launcher refuses a damaged join string, and other services on a joined host, in one line', {
    timeout: 30_000,
  }, () => {
    const dir = tempDir();
    const bad = spawnSync(
      process.execPath,
      [launcherScript, 'relay-node', '--join', 'outpost-join-2.AAAA.AAAAAAAAAAA'],
      {
        env: { PATH: process.env.PATH, DATA_DIR: dir },
        encoding: 'utf8',
      },
    );
    expect(bad.status).toBe(1);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toMatch(/^outpost: the join string is damaged/);

    applyJoin(dir, encodeJoin(sample));
    const other = spawnSync(process.execPath, [launcherScript, 'controller'], {
      env: { PATH: process.env.PATH, DATA_DIR: dir },
      encoding: 'utf8',
    });
    expect(other.status).toBe(1);
    expect(other.stderr).toMatch(/pairs this host with site "main": only relay-node runs here/);
  });

  it('write-env.mjs gives a joined relay node the controller broker, its site and the shared key', {
    timeout: 30_000,
  }, () => {
    const dir = tempDir();
    applyJoin(join(dir, 'data'), encodeJoin({ ...sample, site: 'shed' }));
    const res = spawnSync(
      process.execPath,
      [join(root, 'infra/systemd/write-env.mjs'), '--data-dir', join(dir, 'data'), '--out', join(dir, 'etc')],
      { encoding: 'utf8' },
    );
    expect(res.status, res.stderr).toBe(0);
    const env = readFileSync(join(dir, 'etc', 'relay-node.env'), 'utf8');
    expect(env).toContain(`MQTT_URL=${sample.mqtt_url}\n`);
    expect(env).toContain('RELAYNODE_ID=shed\n');
    expect(env).toContain(`RELAYNODE_API_SECRET=${sample.key}\n`);
    expect(env).toContain(`MQTT_PASSWORD=${sample.password}\n`);
    expect(env).toContain(`CONTROLLER_PUBLIC_KEY=${sample.controller_key}\n`);
  });

  describe('the launcher reads the join string from --join-file, so it is never in its command line', () => {
    // A broker on this host that is not there: the relay node retries, the launcher stays up.
    const local = { ...sample, mqtt_url: 'mqtt://127.0.0.1:9' };
    const text = encodeJoin(local);

    async function launchJoined(args: string[], stdin?: string) {
      const dir = tempDir();
      const child = spawn(process.execPath, [launcherScript, 'relay-node', ...args], {
        env: {
          PATH: process.env.PATH,
          DATA_DIR: dir,
          HOST: '127.0.0.1',
          GPIO_MODE: 'mock',
          RELAYNODE_PORT: String(await freePort()),
        },
        stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout?.on('data', (d) => {
        out += d;
      });
      child.stderr?.on('data', (d) => {
        out += d;
      });
      if (stdin !== undefined) child.stdin?.end(stdin);
      try {
        await until('the join', () => out.includes('joined site') || child.exitCode !== null, 20_000);
        expect(out).toContain('outpost: joined site "main" on mqtt://127.0.0.1:9');
        // What `ps` shows of the resident launcher for its whole life.
        const cmdline = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8');
        expect(cmdline).toContain('relay-node');
        expect(cmdline).not.toContain(text);
        expect(cmdline).not.toContain('outpost-join-2.');
        expect(cmdline).not.toContain(local.password);
        const secrets = JSON.parse(readFileSync(join(dir, 'secrets.json'), 'utf8'));
        expect(secrets.join).toEqual({ mqtt_url: local.mqtt_url, site: 'main', prefix: 'outpost' });
        expect(secrets.mqtt.relaynode).toBe(local.password);
      } finally {
        child.kill('SIGTERM');
        await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
      }
    }

    it('from a file', { timeout: 40_000 }, async () => {
      const file = join(tempDir(), 'join.txt');
      writeFileSync(file, `${text}\n`, { mode: 0o600 });
      await launchJoined(['--join-file', file]);
    });

    it('from standard input (--join-file -)', { timeout: 40_000 }, async () => {
      await launchJoined(['--join-file', '-'], `${text}\n`);
    });

    it('refuses a missing or empty file in one line, joining nothing', () => {
      const dir = tempDir();
      const empty = join(dir, 'empty.txt');
      writeFileSync(empty, '\n');
      for (const [args, message] of [
        [['--join-file', join(dir, 'absent.txt')], /^outpost: --join-file .*absent\.txt: ENOENT$/],
        [['--join-file', empty], /^outpost: --join-file .*empty\.txt: no join string in it$/],
        [['--join-file'], /^outpost: --join-file needs a file/],
      ] as const) {
        const r = spawnSync(process.execPath, [launcherScript, 'relay-node', ...args], {
          env: { PATH: process.env.PATH, DATA_DIR: dir },
          encoding: 'utf8',
        });
        expect(r.status).toBe(1);
        expect(r.stderr.trim()).toMatch(message);
        expect(r.stderr.trim().split('\n')).toHaveLength(1);
      }
      expect(() => readFileSync(join(dir, 'secrets.json'))).toThrow();
    });
  });
});
