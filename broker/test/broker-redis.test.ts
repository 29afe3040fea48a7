import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeUsersFile } from '../src/users.js';
import { startBrokerProcess } from './child.js';
import { broker, FLEET, login, nextMessage, onCleanup, uid } from './helpers.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const KEY_PREFIX = `outpost-test-${process.pid}-${uid()}:`;

async function redisReachable(): Promise<boolean> {
  const probe = new Redis(REDIS_URL, {
    lazyConnect: true,
    connectTimeout: 1000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  try {
    await probe.connect();
    return (await probe.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

const available = await redisReachable();
if (!available && process.env.CI === 'true') throw new Error(`Redis needed at ${REDIS_URL} (CI=true)`);

describe.skipIf(!available)('broker: two processes sharing one Redis', () => {
  const admin = new Redis(REDIS_URL, { lazyConnect: true });
  const dataDir = mkdtempSync(join(tmpdir(), 'outpost-broker-redis-'));
  beforeAll(async () => {
    writeUsersFile(join(dataDir, 'mqtt-users.json'), FLEET);
    await admin.connect();
  });
  afterAll(async () => {
    rmSync(dataDir, { recursive: true, force: true });
    // Every key this run wrote carries KEY_PREFIX; remove them all.
    let cursor = '0';
    do {
      const [next, keys] = await admin.scan(cursor, 'MATCH', `${KEY_PREFIX}*`, 'COUNT', 500);
      if (keys.length) await admin.del(...keys);
      cursor = next;
    } while (cursor !== '0');
    admin.disconnect();
  });

  // One broker in this process, the other a separate `node dist/main.js` process.
  const pair = async () => {
    const one = await broker({ users: FLEET, redisUrl: REDIS_URL, redisPrefix: KEY_PREFIX });
    const two = await startBrokerProcess({ DATA_DIR: dataDir, REDIS_URL, REDIS_PREFIX: KEY_PREFIX });
    return [one, two] as const;
  };

  it('delivers a message published on one broker to a subscriber on the other, both ways', async () => {
    const [one, two] = await pair();
    const nodeA = await login(one, 'node-a', { clientId: `a-${uid()}` });
    await nodeA.subscribeAsync('outpost/relaynode/a/desired', { qos: 1 });
    const ctl = await login(two, 'controller', { clientId: `c-${uid()}` });
    await ctl.subscribeAsync('outpost/relaynode/a/state', { qos: 1 });

    const desired = nextMessage(nodeA, 'outpost/relaynode/a/desired');
    await ctl.publishAsync('outpost/relaynode/a/desired', '{"seq":1}', { qos: 1 });
    expect((await desired).payload).toBe('{"seq":1}');

    const state = nextMessage(ctl, 'outpost/relaynode/a/state');
    await nodeA.publishAsync('outpost/relaynode/a/state', '{"applied_seq":1}', { qos: 1 });
    expect((await state).payload).toBe('{"applied_seq":1}');
  });

  it('keeps retained messages and QoS 1 sessions when a client moves to the other broker', async () => {
    const [one, two] = await pair();
    const nodeA = await login(one, 'node-a', { clientId: `a-${uid()}` });
    await nodeA.publishAsync('outpost/relaynode/a/state', '{"relay":"on"}', { qos: 1, retain: true });

    const viewer = await login(two, 'grafana', { clientId: `v-${uid()}` });
    const retained = nextMessage(viewer, 'outpost/relaynode/a/state');
    await viewer.subscribeAsync('outpost/relaynode/a/state');
    expect(await retained).toEqual({ payload: '{"relay":"on"}', retain: true });

    const clientId = `persist-${uid()}`;
    const sub = await login(one, 'node-a', { clientId, clean: false });
    await sub.subscribeAsync('outpost/relaynode/a/request/#', { qos: 1 });
    await sub.endAsync();
    const ctl = await login(two, 'controller', { clientId: `c-${uid()}` });
    await ctl.publishAsync('outpost/relaynode/a/request/ping', '{"queued":true}', { qos: 1 });

    const queued = new Promise<string>((resolve) => {
      const c = mqtt.connect(two.url, {
        clientId,
        clean: false,
        username: 'node-a',
        password: 'pw-node-a',
        reconnectPeriod: 0,
      });
      onCleanup(() => c.endAsync(true));
      c.on('message', (_t, p) => resolve(p.toString()));
    });
    expect(await queued).toBe('{"queued":true}');

    const [, keys] = await admin.scan('0', 'MATCH', `${KEY_PREFIX}*`, 'COUNT', 1000);
    expect(keys.length).toBeGreaterThan(0);
  });
});
