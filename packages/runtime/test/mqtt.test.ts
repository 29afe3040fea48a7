import { randomUUID } from 'node:crypto';
import mqtt from 'mqtt';
import { writeToStream } from 'mqtt-packet';
import { pino } from 'pino';
import { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createMqtt, NotConnectedError, type OutpostMqtt, RequestTimeoutError } from '../src/mqtt.js';
import { peerUrl } from '../src/testing.js';
import { freePort, hasMosquitto, PrivateMosquitto } from './helpers/mosquitto.js';

const logger = pino({ level: 'silent' });
const url = await peerUrl('TEST_MQTT_URL');
const until = async (cond: () => boolean, ms = 5000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
};

function watcher(brokerUrl: string, filter: string) {
  const got: { topic: string; payload: string; retain: boolean }[] = [];
  const c = mqtt.connect(brokerUrl, { clientId: `watch-${randomUUID()}` });
  c.on('message', (topic, payload, packet) =>
    got.push({ topic, payload: payload.toString(), retain: packet.retain }),
  );
  const ready = c.subscribeAsync(filter, { qos: 1 });
  return { got, ready, close: () => c.endAsync(true) };
}

describe.skipIf(!url)('runtime MQTT client against Mosquitto (TEST_MQTT_URL)', () => {
  const prefix = `t${randomUUID().slice(0, 8)}`;
  let bus: OutpostMqtt;

  beforeAll(async () => {
    bus = await createMqtt({ url: url!, prefix, service: 'simulator', id: 'sim1', logger });
  });
  afterAll(async () => {
    await bus?.close();
  });

  it('publishes a retained online birth on its availability topic', async () => {
    const w = watcher(url!, `${prefix}/simulator/sim1/availability`);
    await w.ready;
    await until(() => w.got.some((m) => m.payload === 'online' && m.retain));
    await w.close();
  });

  it('writes its packets without the number cache mqtt-packet would keep (about 7 MB per service)', async () => {
    const w = watcher(url!, `${prefix}/simulator/sim1/availability`);
    await w.ready;
    await until(() => w.got.some((m) => m.payload === 'online'));
    await w.close();
    expect(writeToStream.cacheNumbers).toBe(false);
  });

  it('publishes typed payloads and delivers validated ones to subscribers', async () => {
    const seen: unknown[] = [];
    await bus.subscribe('simulatorHeartbeat', {}, (payload, params) => {
      seen.push({ id: params.id, up: payload.uptime_seconds });
    });
    const other = await createMqtt({ url: url!, prefix, service: 'simulator', id: 'sim2', logger });
    await other.publish(
      'simulatorHeartbeat',
      { id: 'sim2' },
      {
        sim_reachable: true,
        receiving_udp: false,
        uptime_seconds: 5,
        mode: 'rebroadcaster',
        running: true,
        timestamp_ms: Date.now(),
      },
    );
    await until(() => seen.length === 1);
    expect(seen[0]).toEqual({ id: 'sim2', up: 5 });
    await other.close();
  });

  it('refuses to publish a payload that breaks the contract', async () => {
    await expect(bus.publish('simulatorPosition', { id: 'sim1' }, { lat: 123 } as never)).rejects.toThrow();
  });

  it('drops malformed payloads without calling the handler or crashing', async () => {
    const seen: unknown[] = [];
    await bus.subscribe('controllerState', { id: 'x' }, (p) => {
      seen.push(p);
    });
    const raw = mqtt.connect(url!);
    await raw.publishAsync(`${prefix}/controller/x/state`, 'not json', { qos: 1 });
    await raw.publishAsync(`${prefix}/controller/x/state`, JSON.stringify({ running: 'yes' }), { qos: 1 });
    await new Promise((r) => setTimeout(r, 200));
    expect(seen).toEqual([]);
    expect(bus.connected).toBe(true);
    await raw.endAsync();
  });

  it('says offline explicitly on a clean close', async () => {
    const w = watcher(url!, `${prefix}/dashboard/d1/availability`);
    await w.ready;
    const d = await createMqtt({ url: url!, prefix, service: 'dashboard', id: 'd1', logger });
    await until(() => w.got.some((m) => m.payload === 'online'));
    await d.close();
    await until(() => w.got.at(-1)?.payload === 'offline');
    await w.close();
  });

  it('has the broker announce offline through the last will when the process dies', async () => {
    const w = watcher(url!, `${prefix}/relaynode/n1/availability`);
    await w.ready;
    const n = await createMqtt({
      url: url!,
      prefix,
      service: 'relaynode',
      id: 'n1',
      logger,
      reconnectPeriodMs: 0,
    });
    await until(() => w.got.some((m) => m.payload === 'online'));
    n.client.stream.destroy(); // abrupt loss, as with SIGKILL
    await until(() => w.got.at(-1)?.payload === 'offline');
    await w.close();
    await n.client.endAsync(true);
  });
});

describe.skipIf(!hasMosquitto())('runtime MQTT client across a broker restart', () => {
  it('refuses commands while disconnected, then reconnects and resubscribes', async () => {
    const broker = new PrivateMosquitto(await freePort());
    await broker.start();
    const bus = await createMqtt({
      url: broker.url,
      service: 'controller',
      id: 'c1',
      logger,
      reconnectPeriodMs: 100,
    });
    const seen: number[] = [];
    await bus.subscribe('relaynodeState', { id: 'n1' }, (p) => {
      seen.push(p.applied_seq ?? -1);
    });
    await broker.stop();
    await until(() => !bus.connected);
    const desired = {
      epoch: '1',
      seq: 1,
      issued_at: Date.now(),
      expires_at: Date.now() + 30000,
      heartbeat_interval: 10,
      armed: true,
      relay_on: true,
      challenge: null,
      sig: 'A'.repeat(86),
    };
    await expect(bus.publish('relaynodeDesired', { id: 'n1' }, desired)).rejects.toBeInstanceOf(
      NotConnectedError,
    );
    await broker.start();
    await bus.waitConnected(5000);
    const pub = mqtt.connect(broker.url);
    const state = {
      relay_on: false,
      armed: false,
      failsafe_triggered: false,
      physical_safety_engaged: false,
      applied_seq: 7,
      epoch: 'e1',
      last_heartbeat: null,
      timeout_seconds: 30,
      updated_at: Math.floor(Date.now() / 1000),
    };
    // Nothing was queued: the refused ON never reaches the broker after reconnect.
    const leaks: string[] = [];
    pub.on('message', (t) => leaks.push(t));
    await pub.subscribeAsync('outpost/relaynode/n1/desired');
    await pub.publishAsync('outpost/relaynode/n1/state', JSON.stringify(state), { qos: 1 });
    await until(() => seen.includes(7));
    await new Promise((r) => setTimeout(r, 100));
    expect(leaks).toEqual([]);
    await pub.endAsync();
    await bus.close();
    await broker.stop();
  });
});

describe.skipIf(!hasMosquitto())('runtime MQTT client shutdown', () => {
  it('closes promptly when the broker vanished first', async () => {
    const broker = new PrivateMosquitto(await freePort());
    await broker.start();
    const bus = await createMqtt({
      url: broker.url,
      service: 'dashboard',
      id: 'd9',
      logger,
      reconnectPeriodMs: 100,
    });
    await broker.stop();
    const started = Date.now();
    await bus.close();
    expect(Date.now() - started).toBeLessThan(3000);
  });
});

describe.skipIf(!url)('request/response over MQTT', () => {
  it('matches answers by transaction id and times out when nobody answers', async () => {
    const prefix = `r${randomUUID().slice(0, 8)}`;
    const server = await createMqtt({ url: url!, prefix, service: 'relaynode', id: 'n1', logger });
    await server.subscribe('request', { svc: 'relaynode', id: 'n1' }, async (req, params) => {
      if (params.verb === 'silent') return;
      await server.publish('response', params, {
        transaction: req.transaction,
        status: 'ok',
        data: { echo: req.data },
      });
    });
    const client = await createMqtt({ url: url!, prefix, service: 'controller', id: 'c1', logger });
    const replies = await Promise.all([
      client.request({ svc: 'relaynode', id: 'n1', verb: 'status' }, 1),
      client.request({ svc: 'relaynode', id: 'n1', verb: 'status' }, 2),
    ]);
    expect(replies.map((r) => r.data)).toEqual([{ echo: 1 }, { echo: 2 }]);
    await expect(
      client.request({ svc: 'relaynode', id: 'n1', verb: 'silent' }, null, { timeoutMs: 200 }),
    ).rejects.toBeInstanceOf(RequestTimeoutError);
    await client.close();
    await server.close();
  });
});

describe.skipIf(!url)('runtime MQTT client latency', () => {
  it('turns off Nagle on its TCP socket so a command is not held back ~40 ms', async () => {
    const spy = vi.spyOn(Socket.prototype, 'setNoDelay');
    try {
      const bus = await createMqtt({
        url: url!,
        service: 'controller',
        id: `nd${randomUUID().slice(0, 6)}`,
        logger,
      });
      expect(spy.mock.contexts).toContain(bus.client.stream);
      expect(spy.mock.calls.at(-1)).toEqual([true]);
      await bus.close();
    } finally {
      spy.mockRestore();
    }
  });
});
