import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBrokerEnv } from '../src/config.js';
import { writeUsersFile } from '../src/users.js';
import { runToExit, startBrokerProcess } from './child.js';
import { connect, FLEET, login, nextMessage } from './helpers.js';

const dataDir = mkdtempSync(join(tmpdir(), 'outpost-broker-main-'));
const emptyDir = mkdtempSync(join(tmpdir(), 'outpost-broker-empty-'));
beforeAll(() => {
  writeUsersFile(join(dataDir, 'mqtt-users.json'), FLEET);
});
afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(emptyDir, { recursive: true, force: true });
});

describe('broker process (main)', () => {
  it('stops with one line naming a bad variable', async () => {
    const { code, output } = await runToExit({ DATA_DIR: dataDir, MQTT_PORT: 'eighteen' });
    expect(code).toBe(1);
    expect(output.trim().split('\n')).toHaveLength(1);
    expect(output).toMatch(/^Invalid environment variable MQTT_PORT: /);
    const redis = await runToExit({ DATA_DIR: dataDir, REDIS_URL: 'http://x' });
    expect(redis.output).toMatch(/^Invalid environment variable REDIS_URL: /);
  });

  it('refuses a REDIS_URL without a password unless Redis is on this host; TLS and passwords pass', async () => {
    // The remote addresses are data only: the first list is refused while the environment is parsed,
    // before any connection, and the second is only parsed, never started.
    for (const url of [
      'redis://10.255.255.1:6379',
      'rediss://redis.example:6380',
      'redis://backplane@10.0.0.9',
    ]) {
      const { code, output } = await runToExit({ DATA_DIR: dataDir, REDIS_URL: url });
      expect(code, url).toBe(1);
      expect(output.trim()).toBe(
        'Invalid environment variable REDIS_URL: needs a password (redis://:password@host, rediss:// for TLS) unless Redis runs on this host',
      );
    }
    for (const url of [
      'redis://:s3cret@10.0.0.9:6379',
      'rediss://backplane:s3cret@redis.example:6380',
      'redis://127.0.0.1:6379',
      'redis://[::1]:6379',
      'redis://localhost:6379/2',
    ]) {
      expect(parseBrokerEnv({ REDIS_URL: url }).REDIS_URL, url).toBe(url);
    }
  });

  it('refuses to start without a users file unless anonymous access is asked for', async () => {
    const { code, output } = await runToExit({ DATA_DIR: emptyDir });
    expect(code).toBe(1);
    expect(output).toContain('mqtt-users.json: file not found');

    const open = await startBrokerProcess({ DATA_DIR: emptyDir, MQTT_ALLOW_ANONYMOUS: 'true' });
    const anon = await connect(open.url);
    await anon.subscribeAsync('x/y');
    const got = nextMessage(anon, 'x/y');
    await anon.publishAsync('x/y', 'hi', { qos: 1 });
    expect((await got).payload).toBe('hi');
  });

  it('loads DATA_DIR/mqtt-users.json, serves TCP, WebSocket and /metrics, and stops on SIGTERM', async () => {
    const p = await startBrokerProcess({ DATA_DIR: dataDir, METRICS_PORT: '0', LOG_LEVEL: 'info' });
    expect(p.output()).toMatch(
      /MQTT broker listening on mqtt:\/\/127\.0\.0\.1:\d+ and ws:\/\/127\.0\.0\.1:\d+/,
    );
    await expect(connect(p.url, { username: 'controller', password: 'nope' })).rejects.toMatchObject({
      code: 4,
    });
    const ctl = await login(p, 'controller');
    const viaWs = await login({ url: p.wsUrl }, 'grafana');
    await viaWs.subscribeAsync('outpost/controller/main/state');
    const got = nextMessage(viaWs, 'outpost/controller/main/state');
    await ctl.publishAsync('outpost/controller/main/state', '{"running":false}', { qos: 1, retain: true });
    expect((await got).payload).toBe('{"running":false}');

    const metricsPort = Number(/"metricsPort":(\d+)/.exec(p.output())?.[1]);
    const metrics = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(metrics.status).toBe(200);
    const text = await metrics.text();
    expect(text).toMatch(/^outpost_broker_clients_connected 2$/m);
    expect(text).toContain('process_cpu_user_seconds_total');
    const health = await fetch(`http://127.0.0.1:${metricsPort}/health`);
    expect(await health.json()).toMatchObject({ status: 'healthy' });

    expect(await p.stop('SIGTERM')).toBe(0);
  });

  it('METRICS_PORT listens on this host only, whatever MQTT_HOST says, and takes METRICS_TOKEN', async () => {
    const token = 'broker-metrics-token-0123456789';
    // 127.0.0.2: an address other than the metrics default that still never leaves this machine.
    const p = await startBrokerProcess({
      DATA_DIR: dataDir,
      MQTT_HOST: '127.0.0.2',
      METRICS_PORT: '0',
      METRICS_TOKEN: token,
      LOG_LEVEL: 'info',
    });
    await expect.poll(() => /"metricsPort":\d+/.test(p.output())).toBe(true);
    const metricsPort = Number(/"metricsPort":(\d+)/.exec(p.output())?.[1]);
    const listening = readFileSync('/proc/net/tcp', 'utf8')
      .split('\n')
      .slice(1)
      .map((l) => l.trim().split(/\s+/))
      .filter((f) => f[3] === '0A' && Number.parseInt(f[1]?.split(':')[1] ?? '', 16) === metricsPort)
      .map((f) => f[1]?.split(':')[0]);
    expect(listening).toEqual(['0100007F']); // 127.0.0.1
    const url = `http://127.0.0.1:${metricsPort}`;
    const open = await fetch(`${url}/metrics`);
    expect(open.status).toBe(401);
    expect(await open.text()).not.toContain('outpost_broker');
    expect(
      (await fetch(`${url}/metrics`, { headers: { authorization: 'Bearer wrong-token-0123456789' } })).status,
    ).toBe(401);
    const scraped = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    expect(scraped.status).toBe(200);
    expect(await scraped.text()).toContain('outpost_broker_clients_connected');
    expect(await (await fetch(`${url}/health`)).json()).toEqual({ status: 'healthy' });
    expect(await p.stop('SIGTERM')).toBe(0);
  });

  it('MQTT_SOCKET: the services on this host log in over a Unix socket (0660), off every network interface', {
    timeout: 60_000,
  }, async () => {
    const socket = join(dataDir, 'mqtt.sock');
    // A stale socket of a crashed run is replaced; a regular file at the path is refused.
    writeFileSync(join(dataDir, 'not-a-socket'), '');
    const refused = await runToExit({ DATA_DIR: dataDir, MQTT_SOCKET: join(dataDir, 'not-a-socket') });
    expect(refused.code).not.toBe(0);
    expect(refused.output).toContain('is not a socket');
    for (let run = 0; run < 2; run++) {
      const p = await startBrokerProcess({ DATA_DIR: dataDir, MQTT_SOCKET: socket });
      await expect.poll(() => p.output()).toContain(`listening on mqtt+unix://${socket}`);
      expect(statSync(socket).isSocket()).toBe(true);
      expect(statSync(socket).mode & 0o777).toBe(0o660);
      await expect(
        connect(`mqtt+unix://${socket}`, { username: 'controller', password: 'nope' }),
      ).rejects.toMatchObject({
        code: 4,
      });
      const ctl = await login({ url: `mqtt+unix://${socket}` }, 'controller');
      const tcp = await login(p, 'grafana');
      await tcp.subscribeAsync('outpost/controller/main/state');
      const got = nextMessage(tcp, 'outpost/controller/main/state');
      await ctl.publishAsync('outpost/controller/main/state', `{"run":${run}}`, { qos: 1 });
      expect((await got).payload).toBe(`{"run":${run}}`);
      // SIGKILL leaves the socket file behind, as a crash would.
      await p.stop('SIGKILL');
    }
  });

  it('with only METRICS_BASIC_AUTH set, /metrics needs that pair, as the services do', async () => {
    const pair = 'prometheus:scrape-password-0123';
    const basic = (userPass: string) => ({
      authorization: `Basic ${Buffer.from(userPass).toString('base64')}`,
    });
    const p = await startBrokerProcess({
      DATA_DIR: dataDir,
      METRICS_PORT: '0',
      METRICS_BASIC_AUTH: pair,
      LOG_LEVEL: 'info',
    });
    await expect.poll(() => /"metricsPort":\d+/.test(p.output())).toBe(true);
    const url = `http://127.0.0.1:${Number(/"metricsPort":(\d+)/.exec(p.output())?.[1])}`;
    const open = await fetch(`${url}/metrics`);
    expect(open.status).toBe(401);
    expect(open.headers.get('www-authenticate')).toMatch(/^Basic /);
    expect(await open.text()).not.toContain('outpost_broker');
    for (const wrong of ['prometheus:wrong-password-0123', 'someone:scrape-password-0123', 'prometheus']) {
      const r = await fetch(`${url}/metrics`, { headers: basic(wrong) });
      expect(r.status, wrong).toBe(401);
      expect(await r.text()).not.toContain('outpost_broker');
    }
    expect(
      (await fetch(`${url}/metrics`, { headers: { authorization: 'Bearer scrape-password-0123' } })).status,
    ).toBe(401);
    const scraped = await fetch(`${url}/metrics`, { headers: basic(pair) });
    expect(scraped.status).toBe(200);
    expect(await scraped.text()).toContain('outpost_broker_clients_connected');
    expect(await (await fetch(`${url}/health`)).json()).toEqual({ status: 'healthy' });
    expect(await p.stop('SIGTERM')).toBe(0);
  });

  it("refuses a METRICS_BASIC_AUTH that breaks the services' rule, naming it", async () => {
    const { code, output } = await runToExit({
      DATA_DIR: dataDir,
      METRICS_PORT: '0',
      METRICS_BASIC_AUTH: 'short:pw',
    });
    expect(code).not.toBe(0);
    expect(output).toContain('METRICS_BASIC_AUTH');
    expect(output).not.toContain('short:pw');
  });
});
