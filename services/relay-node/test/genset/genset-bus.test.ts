import { decodePayload, type genset } from '@outpost/contracts';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leased } from '../lease-fields.js';
import { startTestBroker } from '../peers.js';
import { startTestNode } from '../service-helpers.js';
import { dse4520Running, type FakeDse, startFakeDse } from './fake-dse.js';

const TOPIC = 'outpost/relaynode/main/genset';

async function until<T>(get: () => T | undefined, ms = 8_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = get();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('the relay node publishes the genset message through a real broker', () => {
  let broker: Awaited<ReturnType<typeof startTestBroker>>;
  let dse: FakeDse;
  let client: mqtt.MqttClient;
  const messages: { node: string; state: genset.GensetState }[] = [];

  beforeAll(async () => {
    broker = await startTestBroker();
    dse = await startFakeDse({ unit: 10, registers: dse4520Running() });
    client = await mqtt.connectAsync(broker.url, { clientId: `t-genset-${process.pid}` });
    client.on('message', (topic, payload) => {
      const decoded = decodePayload('relaynodeGenset', payload);
      if (!decoded.ok) throw new Error(`genset message breaks the contract: ${decoded.error}`);
      messages.push({ node: topic.split('/')[2] as string, state: decoded.value });
    });
    await client.subscribeAsync('outpost/relaynode/+/genset', { qos: 1 });
  }, 30_000);

  afterAll(async () => {
    await client?.endAsync();
    await dse?.close();
    await broker?.close();
  });

  const mqttConfig = () => ({ url: broker.url, username: undefined, password: undefined, prefix: 'outpost' });

  it('without GENSET_TRANSPORT nothing is read and nothing is published', async () => {
    const n = await startTestNode({ config: { id: 'plain', mqtt: mqttConfig() } });
    try {
      await n.bus?.waitConnected(5_000);
      await new Promise((r) => setTimeout(r, 500));
      expect(n.genset).toBeNull();
      expect(messages.filter((m) => m.node === 'plain')).toEqual([]);
    } finally {
      await n.stop();
    }
  });

  it('publishes the module, retained; a silent module goes unknown while the relay keeps obeying leases', async () => {
    const n = await startTestNode({
      config: {
        mqtt: mqttConfig(),
        genset: {
          transport: 'tcp',
          host: '127.0.0.1',
          port: dse.port,
          unitId: 10,
          pollMs: 200,
          timeoutMs: 200,
          staleMs: 1000,
        },
      },
    });
    try {
      const live = await until(() => messages.find((m) => m.node === 'main' && m.state.reachable)?.state);
      expect(live).toMatchObject({ mode: 'auto', engine_state: 'running', running: true, stale: false });
      expect(live.identity.model).toBe('4520 MkII');

      // A late subscriber gets it retained.
      const late = await mqtt.connectAsync(broker.url);
      const retained = await new Promise<genset.GensetState>((resolve) => {
        late.on('message', (_t, p) => resolve(JSON.parse(p.toString())));
        void late.subscribeAsync(TOPIC, { qos: 1 });
      });
      await late.endAsync();
      expect(retained.reachable).toBe(true);

      dse.set({ fault: 'silent' });
      const stale = await until(() => messages.find((m) => m.node === 'main' && m.state.stale)?.state);
      expect(stale).toMatchObject({ running: null, mode: null, warnings: ['genset_unreachable'] });

      // The relay path does not wait on the module.
      const on = await n.api(
        'POST',
        '/api/heartbeat',
        leased({ heartbeat_interval: 10, armed: true, relay_on: true }),
      );
      expect(on.status).toBe(200);
      expect(await n.pins.level('GPIO16')).toBe(1);
      const off = await n.api(
        'POST',
        '/api/heartbeat',
        leased({ heartbeat_interval: 10, armed: true, relay_on: false }),
      );
      expect(off.status).toBe(200);
      expect(await n.pins.level('GPIO16')).toBe(0);

      dse.set({ fault: null });
      const back = messages.length;
      await until(() => messages.slice(back).find((m) => m.node === 'main' && m.state.reachable)?.state);
    } finally {
      await n.stop();
    }
  }, 30_000);

  it('a relay going OFF also writes the telemetry stop where the module offers it; ON writes nothing', async () => {
    dse.set({ fault: null, registers: dse4520Running() });
    dse.registers({ 4098: 0x4000 }); // function 33 (cancel telemetry start) among page 16's flags
    const before = dse.writes().length;
    const n = await startTestNode({
      config: {
        mqtt: mqttConfig(),
        genset: {
          transport: 'tcp',
          host: '127.0.0.1',
          port: dse.port,
          unitId: 10,
          pollMs: 200,
          timeoutMs: 200,
          staleMs: 1000,
        },
      },
    });
    try {
      const on = await n.api(
        'POST',
        '/api/heartbeat',
        leased({ heartbeat_interval: 10, armed: true, relay_on: true }),
      );
      expect(on.status).toBe(200);
      expect(await n.pins.level('GPIO16')).toBe(1);
      await new Promise((r) => setTimeout(r, 300));
      expect(dse.writes().slice(before)).toEqual([]);
      const off = await n.api(
        'POST',
        '/api/heartbeat',
        leased({ heartbeat_interval: 10, armed: true, relay_on: false }),
      );
      expect(off.status).toBe(200);
      expect(await n.pins.level('GPIO16')).toBe(0);
      // GenComm key 35733 and its complement 65535 − 35733, in one write to 4104–4105.
      await until(() => (dse.writes().length > before ? true : undefined));
      expect(dse.writes().slice(before)).toEqual([{ address: 4104, values: [35733, 29802] }]);
    } finally {
      await n.stop();
    }
  }, 30_000);
  it('with a register map (GENSET_MAP) a relay going OFF writes nothing to the controller: GenComm keys are DSE only', async () => {
    dse.set({ fault: null, registers: dse4520Running() });
    dse.registers({ 4098: 0x4000 });
    const before = dse.writes().length;
    const map = {
      name: 'Example controller',
      registers: [{ register: 1030, type: 'u16' as const, scale: 1, meaning: 'engine_speed_rpm' as const }],
    };
    const n = await startTestNode({
      config: {
        mqtt: mqttConfig(),
        genset: {
          transport: 'tcp',
          host: '127.0.0.1',
          port: dse.port,
          unitId: 10,
          pollMs: 200,
          timeoutMs: 200,
          staleMs: 1000,
          map,
        },
      },
    });
    try {
      const mapped = await until(
        () =>
          messages.find((m) => m.node === 'main' && m.state.protocol === 'register_map' && m.state.reachable)
            ?.state,
      );
      expect(mapped.running_source).toBe('rpm');
      const on = await n.api(
        'POST',
        '/api/heartbeat',
        leased({ heartbeat_interval: 10, armed: true, relay_on: true }),
      );
      expect(on.status).toBe(200);
      const off = await n.api(
        'POST',
        '/api/heartbeat',
        leased({ heartbeat_interval: 10, armed: true, relay_on: false }),
      );
      expect(off.status).toBe(200);
      expect(await n.pins.level('GPIO16')).toBe(0);
      await new Promise((r) => setTimeout(r, 600));
      expect(dse.writes().slice(before)).toEqual([]);
    } finally {
      await n.stop();
    }
  }, 30_000);
});
