import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { simulator } from '@outpost/contracts';
import type { ManualClock } from '@outpost/runtime';
import { peerUrl } from '@outpost/runtime/testing';
import mqtt from 'mqtt';
import { afterAll, describe, expect, it } from 'vitest';
import { simulatorDiscovery, simulatorDiscoveryTopic } from '../../src/ha/discovery.js';
import { waitFor } from '../helpers/peers.js';
import { startTestSim, type TestSim } from '../helpers/sim.js';
import { homeassistant } from '@outpost/contracts';

const { BinarySensor, DeviceDiscovery, DeviceTracker, Sensor } = homeassistant;

/** The release version: the root package.json's, reported by every service. */
const RELEASE = (
  JSON.parse(readFileSync(new URL('../../../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

const PLATFORM = { binary_sensor: BinarySensor, sensor: Sensor, device_tracker: DeviceTracker };
type Cmp = Record<string, unknown> & { p: keyof typeof PLATFORM };

describe('simulator HA discovery payload', () => {
  const payload = simulatorDiscovery({
    simulatorId: 'main',
    topicPrefix: 'outpost',
    haPrefix: 'homeassistant',
    version: '1.0.0',
  });
  const cmps = payload.cmps as Record<string, Cmp>;

  it('uses only HA’s documented keys, per platform, with units HA accepts', () => {
    expect(DeviceDiscovery.safeParse(payload).error).toBeUndefined();
    for (const [key, cmp] of Object.entries(cmps)) {
      const parsed = PLATFORM[cmp.p].safeParse(cmp);
      expect(parsed.error, `${key}: ${parsed.error?.message}`).toBeUndefined();
    }
    expect(Object.fromEntries(Object.entries(cmps).map(([k, c]) => [k, c.p]))).toEqual({
      position: 'device_tracker',
      altitude: 'sensor',
      speed: 'sensor',
      heading: 'sensor',
      running: 'binary_sensor',
    });
    expect(simulatorDiscoveryTopic('homeassistant', 'main')).toBe(
      'homeassistant/device/outpost_simulator_main/config',
    );
  });

  it('announces the heading as an angle, so that HA averages 359° and 1° to 0°, not 180°', () => {
    expect(cmps.heading).toMatchObject({ state_class: 'measurement_angle', unit_of_measurement: '°' });
    expect(cmps.altitude?.state_class).toBe('measurement');
  });

  it('reads the position topic and maps it to the GPS attributes HA moves a tracker with', () => {
    expect(cmps.position).toMatchObject({
      source_type: 'gps',
      json_attributes_topic: 'outpost/simulator/main/position',
    });
    const tpl = cmps.position?.json_attributes_template as string;
    for (const attr of ['latitude', 'longitude', 'gps_accuracy']) expect(tpl).toContain(`'${attr}'`);
    // Every field the templates read exists in the published position / heartbeat.
    const positionFields = Object.keys(simulator.SimulatorPosition.shape);
    for (const c of Object.values(cmps)) {
      const text = `${c.value_template ?? ''}${c.json_attributes_template ?? ''}`;
      const fields = [...text.matchAll(/value_json\.(\w+)/g)].map((m) => m[1] as string);
      const known = String(c.state_topic).endsWith('/running') ? ['running'] : positionFields;
      for (const f of fields) expect(known).toContain(f);
    }
    expect((payload.availability as { topic: string }[])[0]?.topic).toBe(
      'outpost/simulator/main/availability',
    );
  });
});

const url = await peerUrl('TEST_MQTT_URL');

describe.skipIf(!url)('simulator HA discovery on a real broker', () => {
  const prefix = `simha${randomBytes(4).toString('hex')}`;
  // Own discovery prefix: other suites share this broker's homeassistant/ tree.
  const haPrefix = `ha${randomBytes(4).toString('hex')}`;
  let sim: TestSim | undefined;
  let ha: mqtt.MqttClient | undefined;
  const topic = simulatorDiscoveryTopic(haPrefix, 'main');

  afterAll(async () => {
    await sim?.close();
    await ha?.publishAsync(topic, '', { retain: true, qos: 1 });
    await ha?.publishAsync(`${prefix}/simulator/main/availability`, '', { retain: true, qos: 1 });
    await ha?.publishAsync(`${prefix}/simulator/main/running`, '', { retain: true, qos: 1 });
    await ha?.endAsync();
  });

  it('announces the device, answers HA’s birth, and HA sees position and running', {
    timeout: 15_000,
  }, async () => {
    ha = await mqtt.connectAsync(url!, { protocolVersion: 4 });
    const seen: { topic: string; payload: string }[] = [];
    ha.on('message', (t, p) => seen.push({ topic: t, payload: p.toString() }));
    await ha.subscribeAsync([`${haPrefix}/#`, `${prefix}/#`], { qos: 1 });
    sim = await startTestSim({
      MQTT_URL: url!,
      MQTT_TOPIC_PREFIX: prefix,
      HA_DISCOVERY_PREFIX: haPrefix,
    });
    await waitFor(() => seen.some((m) => m.topic === topic));
    const config = JSON.parse(seen.find((m) => m.topic === topic)!.payload) as Record<string, unknown>;
    expect(DeviceDiscovery.safeParse(config).error).toBeUndefined();
    // HA shows the device's and the integration's software version: the release's, not a fixed one.
    expect([(config.dev as { sw?: string }).sw, (config.o as { sw?: string }).sw]).toEqual([
      RELEASE,
      RELEASE,
    ]);
    expect((config.cmps as Record<string, Cmp>).altitude?.state_topic).toBe(
      `${prefix}/simulator/main/position`,
    );

    const before = seen.filter((m) => m.topic === topic).length;
    await ha.publishAsync(`${haPrefix}/status`, 'online', { qos: 1 });
    await waitFor(() => seen.filter((m) => m.topic === topic).length === before + 1);

    await sim.api.ok('/api/position', { airport_icao: 'KDEN' });
    await sim.api.ok('/api/config/modes', { standalone: true });
    await sim.api.ok('/api/config/network', {
      efb_enabled: true,
      efb_sim_name: 'M',
      efb_ip_enabled: true,
      efb_target_ips: ['127.0.0.1'],
    });
    await sim.api.ok('/api/control', { action: 'start' });
    const clock = sim.clock as ManualClock;
    const heard = (t: string, pred: (v: Record<string, unknown>) => boolean = () => true) =>
      seen.find((m) => m.topic === `${prefix}/simulator/main/${t}` && pred(JSON.parse(m.payload)));
    // Advance the simulator's clock a second at a time until its telemetry is out.
    await waitFor(() => {
      clock.advance(1000);
      return heard('position') && heard('running', (v) => v.running === true);
    });
    const p = JSON.parse(heard('position')!.payload) as Record<string, number>;
    expect(typeof p.lat).toBe('number');
    expect(typeof p.altitude_ft).toBe('number');
    await sim.api.ok('/api/control', { action: 'stop' });
    const lastRunning = () =>
      seen.filter((m) => m.topic === `${prefix}/simulator/main/running`).at(-1)?.payload;
    await waitFor(() => lastRunning() === '{"running":false}');
  });

  it('HA_DISCOVERY_ENABLED=false removes the device with an empty retained payload', async () => {
    await sim?.close();
    const seen: { topic: string; payload: string }[] = [];
    ha!.on('message', (t, p) => seen.push({ topic: t, payload: p.toString() }));
    sim = await startTestSim({
      MQTT_URL: url!,
      MQTT_TOPIC_PREFIX: prefix,
      HA_DISCOVERY_PREFIX: haPrefix,
      HA_DISCOVERY_ENABLED: 'false',
    });
    await waitFor(() => seen.some((m) => m.topic === topic && m.payload === ''));
  });
});
