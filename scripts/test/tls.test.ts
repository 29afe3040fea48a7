import { spawnSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@outpost/runtime/config';
import { createCa, issueServerCert } from '@outpost/runtime/pki';
import mqtt from 'mqtt';
import { describe, expect, it } from 'vitest';
import { applyJoin, makeJoinString } from '../src/join.js';
import { decodeJoin, encodeJoin } from '../src/join-string.js';
import { setupTls, TlsError, tlsMode } from '../src/tls.js';
import {
  freePorts,
  joinScript,
  launch,
  launcherScript,
  portEnv,
  root,
  signalGroup,
  until,
} from './helpers/processes.js';
import { scratchStacks } from './helpers/scratch.js';

const { dirs, running } = scratchStacks(30_000);
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'outpost-tls-'));
  dirs.push(d);
  return d;
};

function curl(...args: string[]) {
  const res = spawnSync('curl', ['-sS', '--max-time', '5', ...args], { encoding: 'utf8' });
  if (res.error) throw res.error;
  return { code: res.status, out: res.stdout, err: res.stderr };
}

describe('TLS setting', () => {
  it('auto is on unless HOST is loopback, or when a certificate is given; anything else is refused by name', () => {
    expect(tlsMode({}, '0.0.0.0')).toBe('on');
    expect(tlsMode({}, '192.0.2.5')).toBe('on');
    expect(tlsMode({}, '127.0.0.1')).toBe('off');
    expect(tlsMode({}, '::1')).toBe('off');
    expect(tlsMode({ TLS: 'auto', TLS_CERT_FILE: '/x.pem' }, '127.0.0.1')).toBe('on');
    expect(tlsMode({ TLS: 'OFF' }, '0.0.0.0')).toBe('off');
    expect(tlsMode({ TLS: 'on' }, '127.0.0.1')).toBe('on');
    expect(() => tlsMode({ TLS: 'yes' }, '0.0.0.0')).toThrow(
      /^Invalid environment variable TLS: expected auto, on or off$/,
    );
  });
});

describe('local CA', () => {
  it('is made once under DATA_DIR/tls with a private key, and signs a server certificate for this host', async () => {
    const dataDir = tempDir();
    const first = await setupTls({ env: {}, host: '0.0.0.0', localHost: '127.0.0.1', dataDir });
    expect(first.on).toBe(true);
    const dir = join(dataDir, 'tls');
    expect(statSync(join(dir, 'ca.key')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'server.key')).mode & 0o777).toBe(0o600);
    const caPem = readFileSync(join(dir, 'ca.pem'), 'utf8');
    const ca = new X509Certificate(caPem);
    const server = new X509Certificate(readFileSync(join(dir, 'server.pem')));
    expect(server.verify(ca.publicKey)).toBe(true);
    for (const ip of ['127.0.0.1', '::1']) expect(server.checkIP(ip)).toBe(ip);
    expect(server.checkHost('localhost')).toBe('localhost');
    expect(server.checkHost(hostname())).toBe(hostname());
    expect(first.env).toMatchObject({
      TLS_CERT_FILE: join(dir, 'server.pem'),
      TLS_KEY_FILE: join(dir, 'server.key'),
    });
    expect(readFileSync(first.env.NODE_EXTRA_CA_CERTS!, 'utf8')).toContain(caPem.trim());
    // The fingerprint is printed for pinning; the key never is.
    const text = first.lines.join('\n');
    expect(text).toContain(ca.fingerprint256);
    expect(text).toContain('(created now)');
    expect(text).not.toContain('PRIVATE KEY');
    expect(first.caPem).toBe(caPem);

    // The next start keeps both; a new name reissues the server certificate under the same CA.
    const again = await setupTls({ env: {}, host: '0.0.0.0', localHost: '127.0.0.1', dataDir });
    expect(again.lines.join('\n')).not.toMatch(/created now|reissued/);
    const named = await setupTls({
      env: { TLS_NAMES: 'outpost.example, 198.51.100.9' },
      host: '0.0.0.0',
      localHost: '127.0.0.1',
      dataDir,
    });
    expect(named.lines.join('\n')).toContain('(reissued)');
    const reissued = new X509Certificate(readFileSync(join(dir, 'server.pem')));
    expect(reissued.checkHost('outpost.example')).toBe('outpost.example');
    expect(reissued.checkIP('198.51.100.9')).toBe('198.51.100.9');
    expect(readFileSync(join(dir, 'ca.pem'), 'utf8')).toBe(caPem);
  });

  it('trusts the CAs of TLS_CA_FILE as well, without handing them out in the join string', async () => {
    const dataDir = tempDir();
    const pi = await createCa({ commonName: 'Relay node host' });
    const piFile = join(dataDir, 'pi-ca.pem');
    writeFileSync(piFile, pi.cert);
    const tls = await setupTls({
      env: { TLS_CA_FILE: piFile },
      host: '0.0.0.0',
      localHost: '127.0.0.1',
      dataDir,
    });
    const trust = readFileSync(tls.env.NODE_EXTRA_CA_CERTS!, 'utf8');
    expect(trust).toContain(pi.cert.trim());
    expect(trust).toContain(tls.caPem!.trim());
    const payload = decodeJoin(makeJoinString(dataDir, { HOST: '0.0.0.0', TLS_CA_FILE: piFile }));
    expect(payload.ca).toBe(tls.caPem);
  });

  it('refuses a CA whose key is gone instead of silently making a new one', async () => {
    const dataDir = tempDir();
    await setupTls({ env: {}, host: '0.0.0.0', localHost: '127.0.0.1', dataDir });
    rmSync(join(dataDir, 'tls', 'ca.key'));
    await expect(setupTls({ env: {}, host: '0.0.0.0', localHost: '127.0.0.1', dataDir })).rejects.toThrow(
      TlsError,
    );
  });
});

describe('certificates the operator provides', () => {
  async function operatorFiles(names: string[]) {
    const dir = tempDir();
    const ca = await createCa({ commonName: 'Site CA' });
    const server = await issueServerCert(ca, { names });
    const files = {
      TLS_CERT_FILE: join(dir, 'cert.pem'),
      TLS_KEY_FILE: join(dir, 'key.pem'),
      TLS_CA_FILE: join(dir, 'ca.pem'),
    };
    writeFileSync(files.TLS_CERT_FILE, server.cert);
    writeFileSync(files.TLS_KEY_FILE, server.key, { mode: 0o600 });
    writeFileSync(files.TLS_CA_FILE, ca.cert);
    return { files, ca };
  }

  it('are served as given, their CA trusted by the services, and no local CA is made', async () => {
    const { files, ca } = await operatorFiles(['outpost.example', '127.0.0.1']);
    const dataDir = tempDir();
    const tls = await setupTls({ env: files, host: '0.0.0.0', localHost: '127.0.0.1', dataDir });
    expect(tls.env).toMatchObject({ TLS_CERT_FILE: files.TLS_CERT_FILE, TLS_KEY_FILE: files.TLS_KEY_FILE });
    expect(readFileSync(tls.env.NODE_EXTRA_CA_CERTS!, 'utf8')).toContain(ca.cert.trim());
    expect(existsSync(join(dataDir, 'tls', 'ca.pem'))).toBe(false);
  });

  it('a certificate that does not name the address the services use is refused by variable', async () => {
    const { files } = await operatorFiles(['outpost.example']);
    const err = await setupTls({
      env: files,
      host: '0.0.0.0',
      localHost: '127.0.0.1',
      dataDir: tempDir(),
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toMatch(
      /^Invalid environment variable TLS_CERT_FILE: .*does not name 127\.0\.0\.1/,
    );
  });

  it('TLS=off withholds them from the services', async () => {
    const { files } = await operatorFiles(['127.0.0.1']);
    const tls = await setupTls({
      env: { ...files, TLS: 'off' },
      host: '0.0.0.0',
      localHost: '127.0.0.1',
      dataDir: tempDir(),
    });
    expect(tls.on).toBe(false);
    expect(tls.env).toMatchObject({ TLS_CERT_FILE: '', TLS_KEY_FILE: '' });
  });
});

describe('join string with TLS', () => {
  it('carries the broker as mqtts:// and the CA; the relay node host trusts it after applying', async () => {
    const controller = tempDir();
    await setupTls({ env: {}, host: '0.0.0.0', localHost: '127.0.0.1', dataDir: controller });
    const caPem = readFileSync(join(controller, 'tls', 'ca.pem'), 'utf8');
    const payload = decodeJoin(makeJoinString(controller, { HOST: '0.0.0.0' }));
    expect(payload.mqtt_url).toMatch(/^mqtts:\/\/[^/]+:8883$/);
    expect(payload.ca).toBe(caPem);

    const node = tempDir();
    applyJoin(node, makeJoinString(controller, { HOST: '0.0.0.0' }));
    expect(readFileSync(join(node, 'tls', 'site-ca.pem'), 'utf8')).toBe(caPem);
    // Even with TLS off on the relay node's own listeners, its clients trust the site's CA.
    const tls = await setupTls({ env: {}, host: '127.0.0.1', localHost: '127.0.0.1', dataDir: node });
    expect(tls.on).toBe(false);
    expect(readFileSync(tls.env.NODE_EXTRA_CA_CERTS!, 'utf8')).toContain(caPem.trim());
  });

  it('write-env.mjs points a joined relay node under systemd at the CA the join string carried', async () => {
    const controller = tempDir();
    await setupTls({ env: {}, host: '0.0.0.0', localHost: '127.0.0.1', dataDir: controller });
    const node = tempDir();
    applyJoin(join(node, 'data'), makeJoinString(controller, { HOST: '0.0.0.0' }));
    const res = spawnSync(
      process.execPath,
      [
        join(root, 'infra/systemd/write-env.mjs'),
        '--data-dir',
        join(node, 'data'),
        '--out',
        join(node, 'etc'),
      ],
      { encoding: 'utf8' },
    );
    expect(res.status, res.stderr).toBe(0);
    const env = readFileSync(join(node, 'etc', 'relay-node.env'), 'utf8');
    expect(env).toMatch(/^MQTT_URL=mqtts:\/\//m);
    expect(env).toContain(`NODE_EXTRA_CA_CERTS=${join(node, 'data', 'tls', 'site-ca.pem')}\n`);
  });

  it('a plain site still hands out mqtt:// without a CA', () => {
    const controller = tempDir();
    const payload = decodeJoin(makeJoinString(controller, { HOST: '127.0.0.1' }));
    expect(payload.mqtt_url).toMatch(/^mqtt:\/\/127\.0\.0\.1:1883$/);
    expect(payload.ca).toBeUndefined();
  });
});

describe('the launcher with TLS on', () => {
  it('refuses a TLS value it does not know in one line', () => {
    const res = spawnSync(process.execPath, [launcherScript], {
      env: { PATH: process.env.PATH, DATA_DIR: tempDir(), HOST: '127.0.0.1', TLS: 'sometimes' },
      encoding: 'utf8',
    });
    expect(res.status).toBe(1);
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect(res.stderr).toMatch(/^outpost: Invalid environment variable TLS: expected auto, on or off/);
  });

  it('runs the whole stack on HTTPS and MQTTS with the services verifying each other', {
    timeout: 180_000,
  }, async () => {
    const dataDir = tempDir();
    const ports = await freePorts(
      'MQTT_PORT',
      'MQTT_WS_PORT',
      'MQTT_TLS_PORT',
      'MQTT_WSS_PORT',
      'CONTROLLER_PORT',
      'RELAYNODE_PORT',
      'NOTIFIER_PORT',
      'SIMULATOR_PORT',
      'DASHBOARD_PORT',
    );
    const env = {
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      TLS: 'on',
      ADMIN_PASSWORD: 'correct-horse-battery',
      START_TIMEOUT_SECONDS: '150',
      ...portEnv(ports),
    };
    const run = launch(env);
    running.push(run);
    const out = await run.ready;
    const caFile = join(dataDir, 'tls', 'ca.pem');
    const caPem = readFileSync(caFile, 'utf8');
    expect(out).toContain(new X509Certificate(caPem).fingerprint256);
    expect(out).not.toContain(readFileSync(join(dataDir, 'tls', 'ca.key'), 'utf8').split('\n')[1]!);
    expect(out).toContain(`mqtts://127.0.0.1:${ports.MQTT_TLS_PORT}`);
    expect(out).toContain(`wss://127.0.0.1:${ports.MQTT_WSS_PORT}`);

    const other = await createCa({ commonName: 'Not this site' });
    const otherFile = join(dataDir, 'other-ca.pem');
    writeFileSync(otherFile, other.cert);

    for (const name of [
      'CONTROLLER_PORT',
      'RELAYNODE_PORT',
      'NOTIFIER_PORT',
      'SIMULATOR_PORT',
      'DASHBOARD_PORT',
    ] as const) {
      const port = ports[name];
      expect(out).toContain(`https://127.0.0.1:${port}`);
      // Real curl, trusting only the generated CA.
      const ok = curl('--cacert', caFile, '-D', '-', `https://127.0.0.1:${port}/health`);
      expect(ok.code, `${name}: ${ok.err}`).toBe(0);
      expect(ok.out).toMatch(/^HTTP\/1\.1 200/);
      expect(ok.out.toLowerCase()).toContain(
        'strict-transport-security: max-age=15552000; includesubdomains',
      );
      expect(ok.out).toMatch(/"status":"healthy"/);
      // Plain HTTP on the TLS port: a closed connection, at once, and the service goes on.
      const plain = curl(`http://127.0.0.1:${port}/health`);
      expect(plain.code, name).not.toBe(0);
      expect(plain.code, `${name}: ${plain.err}`).not.toBe(28);
      // A client that trusts another CA refuses the service.
      const wrong = curl('--cacert', otherFile, `https://127.0.0.1:${port}/health`);
      expect(wrong.code, `${name}: ${wrong.err}`).toBe(60);
      expect(curl('--cacert', caFile, `https://127.0.0.1:${port}/health`).code).toBe(0);
    }

    // Every service reached the broker over MQTTS, trusting only what the launcher gave it.
    const secrets = JSON.parse(readFileSync(join(dataDir, 'secrets.json'), 'utf8'));
    const viewer = await mqtt.connectAsync(`mqtts://127.0.0.1:${ports.MQTT_TLS_PORT}`, {
      username: 'viewer',
      password: secrets.mqtt.viewer,
      ca: caPem,
      reconnectPeriod: 0,
    });
    const online = new Set<string>();
    viewer.on('message', (topic, payload) => {
      if (payload.toString() === 'online') online.add(topic.split('/')[1]!);
    });
    await viewer.subscribeAsync('outpost/+/+/availability');
    await until('every service online over MQTTS', () =>
      ['controller', 'relaynode', 'notifier', 'simulator', 'dashboard'].every((s) => online.has(s)),
    );
    await viewer.endAsync();
    await expect(
      mqtt.connectAsync(`mqtts://127.0.0.1:${ports.MQTT_TLS_PORT}`, {
        username: 'viewer',
        password: secrets.mqtt.viewer,
        ca: other.cert,
        reconnectPeriod: 0,
      }),
    ).rejects.toThrow(/certificate/i);

    // The controller calls the notifier over HTTPS: its proxied API answers.
    const login = curl(
      '--cacert',
      caFile,
      '-H',
      'content-type: application/json',
      '-d',
      JSON.stringify({ username: 'admin', password: 'correct-horse-battery' }),
      `https://127.0.0.1:${ports.CONTROLLER_PORT}/api/auth/login`,
    );
    const token = JSON.parse(login.out).access_token as string;
    const proxied = curl(
      '--cacert',
      caFile,
      '-w',
      '\n%{http_code}',
      '-H',
      `authorization: Bearer ${token}`,
      `https://127.0.0.1:${ports.CONTROLLER_PORT}/api/notifications/channels`,
    );
    expect(proxied.out.trim().split('\n').at(-1), proxied.out).toBe('200');

    // A relay node on a second host joins over MQTTS with nothing but the join string.
    const token2 = spawnSync(process.execPath, [joinScript, 'token'], {
      env: { PATH: process.env.PATH, ...env },
      encoding: 'utf8',
    });
    expect(token2.status, token2.stderr).toBe(0);
    const joinText = token2.stdout.trim();
    expect(decodeJoin(joinText)).toMatchObject({
      mqtt_url: `mqtts://127.0.0.1:${ports.MQTT_TLS_PORT}`,
      ca: caPem,
    });
    await signalGroup(run, 'SIGINT');
    expect(run.proc.exitCode).toBe(0);
    const hostB = tempDir();
    // Host A's broker again, this time for host B's relay node alone: the controller host's stack
    // without its own relay node.
    const a = launch(env, ['controller', 'notifier']);
    running.push(a);
    await a.ready;
    const [relayPort, strayPort] = Object.values(await freePorts('RELAYNODE_PORT', 'STRAY_PORT'));
    // The same string with another CA in it: the relay node refuses the broker's certificate.
    const tampered = encodeJoin({ ...decodeJoin(joinText), ca: other.cert });
    const stray = launch(
      { DATA_DIR: tempDir(), HOST: '127.0.0.1', RELAYNODE_PORT: String(strayPort), GPIO_MODE: 'mock' },
      ['relay-node', '--join', tampered],
    );
    running.push(stray);
    await until(
      'the relay node to refuse the certificate',
      () => /broker error.*certificate/i.test(stray.output()),
      30_000,
    );
    await signalGroup(stray, 'SIGINT');
    const b = launch(
      {
        DATA_DIR: hostB,
        HOST: '127.0.0.1',
        RELAYNODE_PORT: String(relayPort),
        GPIO_MODE: 'mock',
      },
      ['relay-node', '--join', joinText],
    );
    running.push(b);
    const bOut = await b.ready;
    expect(bOut).toContain(`mqtts://127.0.0.1:${ports.MQTT_TLS_PORT}`);
    const watcher = await mqtt.connectAsync(`mqtts://127.0.0.1:${ports.MQTT_TLS_PORT}`, {
      username: 'viewer',
      password: secrets.mqtt.viewer,
      ca: caPem,
      reconnectPeriod: 0,
    });
    const seen = new Promise<string>((resolve) => {
      watcher.on('message', (_t, p) => {
        if (p.toString() === 'online') resolve('online');
      });
    });
    await watcher.subscribeAsync('outpost/relaynode/main/availability');
    expect(await seen).toBe('online');
    await watcher.endAsync();
    await signalGroup(b, 'SIGINT');
    await signalGroup(a, 'SIGINT');
  });
});
