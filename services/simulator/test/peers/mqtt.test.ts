import { randomBytes } from 'node:crypto';
import { simulator } from '@outpost/contracts';
import type { ManualClock } from '@outpost/runtime';
import { peerUrl } from '@outpost/runtime/testing';
import mqtt from 'mqtt';
import { afterAll, describe, expect, it } from 'vitest';
import { freeUdpPort, sendUdp } from '../helpers/net.js';
import { waitFor } from '../helpers/peers.js';
import { startTestSim, type TestSim } from '../helpers/sim.js';

const url = await peerUrl('TEST_MQTT_URL');

describe.skipIf(!url)('MQTT telemetry on a real broker', () => {
  const prefix = `simtest${randomBytes(4).toString('hex')}`;
  let sim: TestSim | undefined;
  let watcher: mqtt.MqttClient | undefined;
  afterAll(async () => {
    await sim?.close();
    await watcher?.endAsync();
  });

  it('availability online then offline; simulator/<id>/position once a second while running', async () => {
    watcher = await mqtt.connectAsync(url!, { protocolVersion: 4 });
    const seen: Array<{ topic: string; payload: string }> = [];
    watcher.on('message', (topic, payload) => seen.push({ topic, payload: payload.toString() }));
    await watcher.subscribeAsync(`${prefix}/#`);

    sim = await startTestSim({ MQTT_URL: url!, MQTT_TOPIC_PREFIX: prefix, SERVICE_ID: 'bench1' });
    await waitFor(() =>
      seen.some((m) => m.topic === `${prefix}/simulator/bench1/availability` && m.payload === 'online'),
    );
    expect((await sim.api.get('/health')).body).toMatchObject({ broker: 'connected' });

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
    clock.advance(1000);
    clock.advance(1000);
    const topic = `${prefix}/simulator/bench1/position`;
    await waitFor(() => seen.filter((m) => m.topic === topic).length === 2);
    const positions = seen
      .filter((m) => m.topic === topic)
      .map((m) => simulator.SimulatorPosition.parse(JSON.parse(m.payload)));
    expect(positions[0]).toMatchObject({ airport_icao: 'KDEN', speed_kts: 0, heading: 360 });
    expect(positions[1]!.timestamp_ms - positions[0]!.timestamp_ms).toBe(1000);

    await sim.close();
    sim = undefined;
    await waitFor(() =>
      seen.some((m) => m.topic === `${prefix}/simulator/bench1/availability` && m.payload === 'offline'),
    );
    // Clean up the retained availability so the broker does not keep test leftovers.
    await watcher.publishAsync(`${prefix}/simulator/bench1/availability`, '', { retain: true });
  });

  it('a rebroadcaster sends the 1 Hz heartbeat with receiving_udp and SIMULATOR_IP', async () => {
    const seen: Array<{ topic: string; payload: string }> = [];
    watcher!.on('message', (topic, payload) => seen.push({ topic, payload: payload.toString() }));
    const listen = await freeUdpPort();
    sim = await startTestSim({
      MQTT_URL: url!,
      MQTT_TOPIC_PREFIX: prefix,
      SERVICE_ID: 'rebro1',
      SIMULATOR_IP: '127.0.0.1',
      AUTO_START_MODE: 'rebroadcaster',
      AUTO_START_LISTEN_PORT: String(listen),
      AUTO_START_UDP_RETRANSMIT: 'true',
      AUTO_START_UDP_RETRANSMIT_IP: '127.0.0.1',
    });
    await waitFor(() => sim!.bus!.connected);
    await sendUdp(listen, JSON.stringify({ lat: 10, lon: 20, alt_ft: 500, speed_kts: 50, heading: 10 }));
    await waitFor(() => sim!.service.status().lat === 10);
    (sim.clock as ManualClock).advance(1000);
    const topic = `${prefix}/simulator/rebro1/heartbeat`;
    const hb = await waitFor(() => {
      const m = seen
        .filter((x) => x.topic === topic)
        .map((x) => simulator.SimulatorHeartbeat.parse(JSON.parse(x.payload)));
      return m.find((x) => x.receiving_udp);
    });
    expect(hb).toMatchObject({
      mode: 'rebroadcaster',
      running: true,
      lat: 10,
      lon: 20,
      simulator_ip: '127.0.0.1',
    });
  });

  it('HEARTBEAT_ALL_MODES=true: an idle stand-alone simulator beats too, stopped and without a position', async () => {
    await sim?.close();
    const seen: Array<{ topic: string; payload: string }> = [];
    watcher!.on('message', (topic, payload) => seen.push({ topic, payload: payload.toString() }));
    sim = await startTestSim({
      MQTT_URL: url!,
      MQTT_TOPIC_PREFIX: prefix,
      SERVICE_ID: 'idle1',
      HEARTBEAT_ALL_MODES: 'true',
    });
    await waitFor(() => sim!.bus!.connected);
    await sim.api.ok('/api/config/modes', { standalone: true });
    (sim.clock as ManualClock).advance(1000);
    const topic = `${prefix}/simulator/idle1/heartbeat`;
    const hb = await waitFor(
      () =>
        seen
          .filter((x) => x.topic === topic)
          .map((x) => simulator.SimulatorHeartbeat.parse(JSON.parse(x.payload)))[0],
    );
    expect(hb).toMatchObject({ mode: 'standalone', running: false, lat: null, lon: null });
  });

  it('without it an idle stand-alone simulator sends no heartbeat', async () => {
    await sim?.close();
    const seen: string[] = [];
    watcher!.on('message', (topic) => seen.push(topic));
    sim = await startTestSim({ MQTT_URL: url!, MQTT_TOPIC_PREFIX: prefix, SERVICE_ID: 'idle2' });
    await waitFor(() => sim!.bus!.connected);
    await sim.api.ok('/api/config/modes', { standalone: true });
    (sim.clock as ManualClock).advance(3000);
    await waitFor(() => seen.includes(`${prefix}/simulator/idle2/availability`));
    await new Promise((r) => setTimeout(r, 100));
    expect(seen).not.toContain(`${prefix}/simulator/idle2/heartbeat`);
  });

  it('simulator/<id>/position follows a flight plan', async () => {
    await sim?.close();
    const seen: Array<{ topic: string; payload: string }> = [];
    watcher!.on('message', (topic, payload) => seen.push({ topic, payload: payload.toString() }));
    sim = await startTestSim({ MQTT_URL: url!, MQTT_TOPIC_PREFIX: prefix, SERVICE_ID: 'route1' });
    await waitFor(() => sim!.bus!.connected);
    const put = await sim.api.request('PUT', '/api/flightplan', {
      points: [{ icao: 'KSFO' }, { icao: 'KOAK' }],
      cruise_altitude_ft: 3000,
      cruise_speed_kts: 150,
    });
    expect(put.status).toBe(200);
    await sim.api.ok('/api/config/modes', { standalone: true });
    await sim.api.ok('/api/config/network', {
      efb_enabled: true,
      efb_sim_name: 'M',
      efb_ip_enabled: true,
      efb_target_ips: ['127.0.0.1'],
    });
    await sim.api.ok('/api/control', { action: 'start' });
    const clock = sim.clock as ManualClock;
    const topic = `${prefix}/simulator/route1/position`;
    for (let i = 1; i <= 30; i++) clock.advance(1000);
    await waitFor(() => seen.filter((m) => m.topic === topic).length === 30);
    const last = simulator.SimulatorPosition.parse(
      JSON.parse(seen.filter((m) => m.topic === topic).at(-1)!.payload),
    );
    const status = (await sim.api.get('/api/status')).body as Record<string, number>;
    expect(last.lat).toBe(status.lat);
    expect(last.lon).toBe(status.lon);
    expect(last.altitude_ft).toBe(status.altitude_ft);
    expect(last.altitude_ft).toBeGreaterThan(13);
    expect(last.speed_kts).toBe(150);
  });
});
