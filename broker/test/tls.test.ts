import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:https';
import { connect as netConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCa, issueServerCert, type PemPair } from '@outpost/runtime/pki';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeUsersFile } from '../src/users.js';
import { MAIN } from './build.js';
import { runToExit } from './child.js';
import { broker, FLEET, login, nextMessage, onCleanup } from './helpers.js';

let dir: string;
let ca: PemPair;
let otherCa: PemPair;
let tls: { cert: string; key: string };
let files: { TLS_CERT_FILE: string; TLS_KEY_FILE: string; CA: string };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'outpost-broker-tls-'));
  ca = await createCa({ commonName: 'Outpost broker test CA' });
  otherCa = await createCa({ commonName: 'Another CA' });
  tls = await issueServerCert(ca, { names: ['localhost', '127.0.0.1'] });
  files = {
    TLS_CERT_FILE: join(dir, 'server.pem'),
    TLS_KEY_FILE: join(dir, 'server.key'),
    CA: join(dir, 'ca.pem'),
  };
  writeFileSync(files.TLS_CERT_FILE, tls.cert);
  writeFileSync(files.TLS_KEY_FILE, tls.key, { mode: 0o600 });
  writeFileSync(files.CA, ca.cert);
  writeUsersFile(join(dir, 'mqtt-users.json'), FLEET);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const tlsBroker = () => broker({ users: FLEET, tls, tlsPort: 0, wssPort: 0 });

describe('broker over TLS', () => {
  it('MQTTS and WSS carry a login and a message for a client that trusts the CA', async () => {
    const b = await tlsBroker();
    expect(b.tlsUrl).toMatch(/^mqtts:\/\/127\.0\.0\.1:\d+$/);
    expect(b.wssUrl).toMatch(/^wss:\/\/127\.0\.0\.1:\d+$/);
    const ctl = await login({ url: b.tlsUrl! }, 'controller', { ca: ca.cert });
    const viewer = await login({ url: b.wssUrl! }, 'grafana', { ca: ca.cert });
    await viewer.subscribeAsync('outpost/controller/main/state');
    const got = nextMessage(viewer, 'outpost/controller/main/state');
    await ctl.publishAsync('outpost/controller/main/state', '{"running":true}', { qos: 1 });
    expect((await got).payload).toBe('{"running":true}');
    // The ACL applies over TLS as over TCP.
    await expect(
      login({ url: b.tlsUrl! }, 'controller', { ca: ca.cert, password: 'wrong' }),
    ).rejects.toMatchObject({
      code: 4,
    });
  });

  it('a client that trusts another CA, or none, is refused before it logs in', async () => {
    const b = await tlsBroker();
    await expect(login({ url: b.tlsUrl! }, 'controller', { ca: otherCa.cert })).rejects.toThrow(
      /certificate/i,
    );
    await expect(login({ url: b.tlsUrl! }, 'controller')).rejects.toThrow(/certificate/i);
    await expect(login({ url: b.wssUrl! }, 'controller', { ca: otherCa.cert })).rejects.toThrow(
      /certificate/i,
    );
    expect(b.aedes.connectedClients).toBe(0);
  });

  it('plain MQTT on the TLS port is dropped at once, and the broker goes on', async () => {
    const b = await tlsBroker();
    const started = Date.now();
    await expect(login({ url: `mqtt://127.0.0.1:${b.tlsPort}` }, 'controller')).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(3000);
    // Raw bytes that are no TLS at all: the socket is closed rather than left hanging.
    const closed = await new Promise<boolean>((resolve) => {
      const s = netConnect({ host: '127.0.0.1', port: b.tlsPort! }, () => s.write('GET / HTTP/1.1\r\n\r\n'));
      s.on('error', () => {});
      s.on('close', () => resolve(true));
      setTimeout(() => resolve(false), 3000).unref();
    });
    expect(closed).toBe(true);
    const ok = await login({ url: b.tlsUrl! }, 'controller', { ca: ca.cert });
    expect(ok.connected).toBe(true);
  });
});

describe('broker process with TLS_CERT_FILE and TLS_KEY_FILE', () => {
  it('serves MQTTS, WSS and /metrics over TLS on MQTT_HOST, and plain MQTT only on loopback', async () => {
    const proc = spawn(process.execPath, [MAIN], {
      env: {
        PATH: process.env.PATH ?? '',
        DATA_DIR: dir,
        MQTT_HOST: '127.0.0.1',
        MQTT_PORT: '0',
        MQTT_WS_PORT: '0',
        MQTT_TLS_PORT: '0',
        MQTT_WSS_PORT: '0',
        METRICS_PORT: '0',
        LOG_LEVEL: 'info',
        TLS_CERT_FILE: files.TLS_CERT_FILE,
        TLS_KEY_FILE: files.TLS_KEY_FILE,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    onCleanup(async () => {
      if (proc.exitCode === null) proc.kill('SIGKILL');
    });
    let out = '';
    proc.stderr.on('data', (d) => {
      out += d;
    });
    const line = await new Promise<RegExpExecArray>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`not ready:\n${out}`)), 8000);
      proc.stdout.on('data', (d) => {
        out += d;
        const m =
          /listening on mqtts:\/\/(\S+) and wss:\/\/(\S+?); plain on mqtt:\/\/(\S+) and ws:\/\/(\S+) \(this host only\)/.exec(
            out,
          );
        if (m && /"metricsPort":\d+/.test(out)) {
          clearTimeout(timer);
          resolve(m);
        }
      });
    });
    const ctl = await login({ url: `mqtts://${line[1]}` }, 'controller', { ca: ca.cert });
    const ws = await login({ url: `wss://${line[2]}` }, 'grafana', { ca: ca.cert });
    const plain = await login({ url: `mqtt://${line[3]}` }, 'node-a');
    expect([ctl.connected, ws.connected, plain.connected]).toEqual([true, true, true]);

    const metricsPort = Number(/"metricsPort":(\d+)/.exec(out)?.[1]);
    const health = await new Promise<number>((resolve, reject) =>
      get(`https://127.0.0.1:${metricsPort}/health`, { ca: ca.cert }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      }).on('error', reject),
    );
    expect(health).toBe(200);
    proc.kill('SIGTERM');
  });

  it('binds the plain listeners to loopback when MQTT_HOST is a wildcard', async () => {
    const proc = spawn(process.execPath, [MAIN], {
      env: {
        PATH: process.env.PATH ?? '',
        DATA_DIR: dir,
        MQTT_HOST: '0.0.0.0',
        MQTT_PORT: '0',
        MQTT_WS_PORT: '0',
        MQTT_TLS_PORT: '0',
        MQTT_WSS_PORT: '0',
        LOG_LEVEL: 'warn',
        TLS_CERT_FILE: files.TLS_CERT_FILE,
        TLS_KEY_FILE: files.TLS_KEY_FILE,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    onCleanup(async () => {
      if (proc.exitCode === null) proc.kill('SIGKILL');
    });
    let out = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`not ready:\n${out}`)), 8000);
      proc.stdout.on('data', (d) => {
        out += d;
        if (out.includes('(this host only)')) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    expect(out).toMatch(/plain on mqtt:\/\/127\.0\.0\.1:\d+ and ws:\/\/127\.0\.0\.1:\d+/);
    proc.kill('SIGTERM');
  });

  it('stops with one line naming TLS_KEY_FILE when the key is missing', async () => {
    const { code, output } = await runToExit({
      DATA_DIR: dir,
      TLS_CERT_FILE: files.TLS_CERT_FILE,
      TLS_KEY_FILE: join(dir, 'nope.key'),
    });
    expect(code).toBe(1);
    expect(output.trim().split('\n')).toHaveLength(1);
    expect(output).toMatch(/^Invalid environment variable TLS_KEY_FILE: cannot read .*nope\.key \(ENOENT\)/);
  });
});
