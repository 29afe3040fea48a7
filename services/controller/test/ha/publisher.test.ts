import { type RunningBroker, startBroker } from '@outpost/broker';
import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DiscoveryPublisher } from '@outpost/runtime';
import { waitFor } from '../helpers/wait.js';

const TOPIC = 'homeassistant/device/outpost_controller_main/config';
const quiet = { info: () => undefined, warn: () => undefined };

describe('DiscoveryPublisher on a real broker', () => {
  let broker: RunningBroker;
  const clients: MqttClient[] = [];
  const connect = async () => {
    const c = await mqtt.connectAsync(broker.url, { reconnectPeriod: 0 });
    clients.push(c);
    return c;
  };
  const watch = async (c: MqttClient, filter: string) => {
    const got: { topic: string; payload: string; retain: boolean }[] = [];
    c.on('message', (topic, payload, packet) =>
      got.push({ topic, payload: payload.toString(), retain: packet.retain }),
    );
    await c.subscribeAsync(filter, { qos: 1 });
    return got;
  };

  beforeAll(async () => {
    broker = await startBroker({ port: 0, wsPort: false, host: '127.0.0.1' });
  });
  afterAll(async () => {
    for (const c of clients) await c.endAsync();
    await broker.close();
  });

  it('publishes retained, republishes on HA birth, and an empty payload removes the device', async () => {
    const service = await connect();
    const on = new DiscoveryPublisher({
      client: service,
      haPrefix: 'homeassistant',
      topic: TOPIC,
      enabled: true,
      build: () => ({ dev: { ids: ['x'], name: 'x' } }),
      logger: quiet,
    });
    on.attach();
    const ha = await connect();
    const seen = await watch(ha, 'homeassistant/device/#');
    await waitFor(() => seen.length === 1);
    expect(seen[0]?.retain).toBe(true);

    // HA's birth message: the whole device again.
    await ha.publishAsync('homeassistant/status', 'online', { qos: 1 });
    await waitFor(() => seen.length === 2);
    expect(JSON.parse(seen[1]?.payload as string)).toEqual({ dev: { ids: ['x'], name: 'x' } });
    on.detach();

    // The feature turned off: the next service start clears the retained config.
    const off = new DiscoveryPublisher({
      client: service,
      haPrefix: 'homeassistant',
      topic: TOPIC,
      enabled: false,
      build: () => ({}),
      logger: quiet,
    });
    off.attach();
    await waitFor(() => seen.length === 3);
    expect(seen[2]).toMatchObject({ topic: TOPIC, payload: '' });

    const late = await connect();
    const lateSeen = await watch(late, 'homeassistant/device/#');
    // A marker published after the subscription proves the broker has handed over its retained set.
    await service.publishAsync('homeassistant/device/marker/config', 'm', { qos: 1 });
    await waitFor(() => lateSeen.some((m) => m.topic.includes('marker')));
    expect(lateSeen.filter((m) => m.topic === TOPIC)).toEqual([]);

    // Disabled: an HA birth no longer brings it back.
    await ha.publishAsync('homeassistant/status', 'online', { qos: 1 });
    await service.publishAsync('homeassistant/device/marker2/config', 'm', { qos: 1 });
    await waitFor(() => seen.some((m) => m.topic.includes('marker2')));
    expect(seen.filter((m) => m.topic === TOPIC)).toHaveLength(3);
    off.detach();
  });
});
