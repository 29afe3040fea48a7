import { decodePayload, type genset } from '@outpost/contracts';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readGensetSettings } from '../../src/genset/settings.js';
import { leased } from '../lease-fields.js';
import { startTestBroker } from '../peers.js';
import { startTestNode } from '../service-helpers.js';

async function until<T>(get: () => T | undefined, ms = 8_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = get();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

const dev = { transport: 'dev', unitId: 1, pollMs: 200, timeoutMs: 200, staleMs: 1000 } as const;

describe('GENSET_TRANSPORT=dev: a fake module that follows the relay, for a host without one', () => {
  let broker: Awaited<ReturnType<typeof startTestBroker>>;
  let client: mqtt.MqttClient;
  const messages: { node: string; state: genset.GensetState }[] = [];
  const mqttConfig = () => ({ url: broker.url, username: undefined, password: undefined, prefix: 'outpost' });
  const latest = (node: string) => messages.filter((m) => m.node === node).at(-1)?.state;

  beforeAll(async () => {
    broker = await startTestBroker();
    client = await mqtt.connectAsync(broker.url, { clientId: `t-genset-dev-${process.pid}` });
    client.on('message', (topic, payload) => {
      if (payload.length === 0) return;
      const decoded = decodePayload('relaynodeGenset', payload);
      if (!decoded.ok) throw new Error(`genset message breaks the contract: ${decoded.error}`);
      messages.push({ node: topic.split('/')[2] as string, state: decoded.value });
    });
    await client.subscribeAsync('outpost/relaynode/+/genset', { qos: 1 });
  }, 30_000);

  afterAll(async () => {
    await client?.endAsync();
    await broker?.close();
  });

  it('is chosen by GENSET_TRANSPORT=dev, which needs no host or device', () => {
    expect(readGensetSettings({ GENSET_TRANSPORT: 'dev' })).toMatchObject({ transport: 'dev', pollMs: 2000 });
  });

  it('the engine runs while the relay is ON and stops when it goes OFF; its meters go on', async () => {
    const n = await startTestNode({ config: { id: 'devgen', mqtt: mqttConfig(), genset: dev } });
    try {
      const idle = await until(() => latest('devgen'));
      expect(idle).toMatchObject({
        transport: 'dev',
        reachable: true,
        stale: false,
        mode: 'auto',
        engine_state: 'stopped',
        running: false,
        identity: { model: '7420 MkII' },
        alarms: { level: 'none', active: [] },
      });
      expect(idle.instruments).toMatchObject({ engine_speed_rpm: 0, oil_temperature_c: null });
      const hoursBefore = idle.accumulated.engine_run_time_s as number;
      const startsBefore = idle.accumulated.starts as number;

      const on = await n.api(
        'POST',
        '/api/heartbeat',
        leased({ heartbeat_interval: 10, armed: true, relay_on: true }, Date.now(), { nodeId: 'devgen' }),
      );
      expect(on.status).toBe(200);
      const running = await until(() => (latest('devgen')?.running ? latest('devgen') : undefined));
      expect(running.instruments).toMatchObject({
        engine_speed_rpm: 1500,
        frequency_hz: 50,
        oil_pressure_kpa: 380,
      });
      expect(running.accumulated.starts).toBe(startsBefore + 1);
      await new Promise((r) => setTimeout(r, 1_200));

      const off = await n.api(
        'POST',
        '/api/heartbeat',
        leased({ heartbeat_interval: 10, armed: true, relay_on: false }, Date.now(), { nodeId: 'devgen' }),
      );
      expect(off.status).toBe(200);
      const stopped = await until(() => {
        const s = latest('devgen');
        return s && !s.running && s.engine_state === 'stopped' ? s : undefined;
      });
      expect(stopped.instruments.engine_speed_rpm).toBe(0);
      expect(stopped.accumulated.engine_run_time_s).toBeGreaterThan(hoursBefore);
    } finally {
      await n.stop();
    }
  }, 30_000);

  it('without DEV_MODE it reads nothing and publishes nothing', async () => {
    const n = await startTestNode({
      config: { id: 'nodev', devMode: false, mqtt: mqttConfig(), genset: dev },
    });
    try {
      await n.bus?.waitConnected(5_000);
      await new Promise((r) => setTimeout(r, 600));
      expect(n.genset).toBeNull();
      expect(messages.filter((m) => m.node === 'nodev')).toEqual([]);
    } finally {
      await n.stop();
    }
  }, 30_000);
});
