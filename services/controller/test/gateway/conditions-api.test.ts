import { afterEach, describe, expect, it } from 'vitest';
import type { HeartbeatPublisher } from '../../src/domain/heartbeat-lease.js';
import { createControllerMetrics } from '../../src/metrics/controller-metrics.js';
import { type TestApp, testApp } from '../helpers/app.js';
import { useTestDatabase } from '../helpers/databases.js';
import { waitFor } from '../helpers/wait.js';

const db = useTestDatabase();
let t: TestApp;
afterEach(async () => {
  await t?.close();
});

const soc = {
  enabled: true,
  start_value: 30,
  start_delay_seconds: 60,
  stop_value: 80,
  stop_delay_seconds: 0,
};
const config = {
  conditions: { soc },
  sources: {
    soc: { type: 'rest', stale_after_seconds: 600 },
    battery_voltage: {
      type: 'victron_gx',
      portal_id: 'c0619ab1c2d3',
      broker_url: 'mqtt://gx:secret-pass@192.168.1.20:1883',
    },
  },
  minimum_run_minutes: 5,
};

async function sample(name: string, label: string): Promise<number | null> {
  const text = await (await t.app.request('/metrics')).text();
  for (const line of text.split('\n')) {
    const m = /^(\w+)(\{[^}]*\})? (\S+)$/.exec(line);
    if (m && m[1] === name && (m[2] ?? '').includes(label)) return Number(m[3]);
  }
  return null;
}

/** The site's LAN, where its GX is, opened as an installer would (OUTBOUND_ALLOWED_NETWORKS). */
const LAN = { config: { outboundAllowedNetworks: '127.0.0.0/8,::1,192.168.1.0/24' } };

describe('/api/conditions', () => {
  it('stores the configuration, hides broker passwords, and keeps it across a restart', async () => {
    t = await testApp(db(), LAN);
    const put = await t.request('PUT', '/api/conditions/config', config);
    expect(put.status).toBe(200);
    expect(put.body.config.sources.battery_voltage.broker_url).toBe('mqtt://gx:********@192.168.1.20:1883');
    expect(put.body.sources.map((s: { name: string; topic: string | null }) => [s.name, s.topic])).toEqual([
      ['soc', null],
      ['battery_voltage', 'N/c0619ab1c2d3/system/0/Dc/Battery/Voltage'],
    ]);
    // Sending back what GET showed keeps the stored password.
    const shown = (await t.request('GET', '/api/conditions/config')).body;
    expect((await t.request('PUT', '/api/conditions/config', shown)).status).toBe(200);
    await t.close();
    t = await testApp(db(), { ...LAN, reset: false });
    expect(t.svc.conditions.config.sources.battery_voltage).toMatchObject({
      broker_url: 'mqtt://gx:secret-pass@192.168.1.20:1883',
    });
    expect((await t.request('GET', '/api/conditions')).body.config.conditions.soc).toMatchObject(soc);
  });

  it('keeps sources in their lane: a bus topic and a refused broker are 422, and nothing changes', async () => {
    t = await testApp(db(), LAN);
    expect(
      (await t.request('PUT', '/api/conditions/config', { sources: { soc: { type: 'rest' } } })).status,
    ).toBe(200);
    const put = (sources: Record<string, unknown>) => t.request('PUT', '/api/conditions/config', { sources });
    // Another service's topic under the bus prefix (a simulator account could feed a start with it).
    const bus = await put({ ac_load: { type: 'mqtt', topic: 'outpost/simulator/main/load' } });
    expect(bus.status).toBe(422);
    expect(bus.body.detail).toContain('sources.ac_load.topic');
    expect(bus.body.detail).toContain('bus prefix outpost/');
    expect(
      (await put({ soc: { type: 'ha_statestream', entity_id: 'sensor.soc', base_topic: 'outpost' } })).status,
    ).toBe(422);
    // A route the controller reads is in its lane; a topic outside the prefix is anyone's.
    expect(
      (await put({ grid: { type: 'mqtt', topic: 'outpost/relaynode/main/state', json_path: 'relay_on' } }))
        .status,
    ).toBe(200);
    expect((await put({ ac_load: { type: 'mqtt', topic: 'shellyem/emeter/0/power' } })).status).toBe(200);

    // Brokers at addresses the outbound rule refuses: the metadata address, link-local, the LAN not
    // listed. Checked on save; nothing is connected to.
    for (const url of [
      'mqtt://169.254.169.254:1883',
      'ws://169.254.10.1:9001/mqtt',
      'mqtts://gx:pw@10.20.30.40:8883',
    ]) {
      const refused = await put({
        soc: { type: 'victron_gx', portal_id: 'c0619ab1c2d3', broker_url: url },
      });
      expect(refused.status, url).toBe(422);
      expect(refused.body.detail).toContain('sources.soc.broker_url');
      expect(refused.body.detail).toContain('not allowed (OUTBOUND_ALLOWED_NETWORKS)');
      expect(refused.body.detail).not.toContain(':pw@');
    }
    expect((await t.request('GET', '/api/conditions/config')).body.sources).toEqual({
      ac_load: {
        type: 'mqtt',
        topic: 'shellyem/emeter/0/power',
        json_path: null,
        scale: 1,
        stale_after_seconds: 300,
      },
    });
  });

  it('refuses a bad configuration with 422 naming the field, and changes nothing', async () => {
    t = await testApp(db(), LAN);
    await t.request('PUT', '/api/conditions/config', config);
    const bad = await t.request('PUT', '/api/conditions/config', {
      ...config,
      conditions: { soc: { ...soc, stop_value: 20 } },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toContain('conditions.soc.stop_value');
    expect((await t.request('GET', '/api/conditions/config')).body.conditions.soc.stop_value).toBe(80);
    const noInverter = await t.request('PUT', '/api/conditions/config', {
      ...config,
      sources: { ...config.sources, overload: config.sources.battery_voltage },
    });
    expect(noInverter.status).toBe(422);
    expect(noInverter.body.detail).toContain('sources.overload.vebus_instance');
    expect((await t.request('GET', '/api/conditions/config')).body.sources.overload).toBeUndefined();
    expect((await t.request('PUT', '/api/conditions/config', 'not json')).status).toBe(400);
    t.setToken('');
    expect((await t.request('GET', '/api/conditions')).status).toBe(401);
  });

  it('a REST source takes PUT values: the condition starts after its delay, with the value in the run', async () => {
    t = await testApp(db(), LAN);
    await t.request('PUT', '/api/conditions/config', config);
    await t.request('POST', '/api/generator/arm');
    const put = await t.request('PUT', '/api/conditions/sources/soc/value', { value: 24 });
    expect(put.status).toBe(200);
    expect(put.body.conditions[0]).toMatchObject({
      name: 'soc',
      state: 'start_pending',
      countdown_seconds: 60,
    });
    expect(
      (await t.request('PUT', '/api/conditions/sources/battery_voltage/value', { value: 50 })).status,
    ).toBe(409);
    expect((await t.request('PUT', '/api/conditions/sources/soc/value', { value: 'low' })).status).toBe(422);
    t.clock.advance(60_000);
    await waitFor(async () => (await t.request('GET', '/api/generator/state')).body.running === true);
    expect((await t.request('GET', '/api/generator/state')).body).toMatchObject({
      running: true,
      trigger: 'soc',
    });
    await t.request('PUT', '/api/conditions/sources/soc/value', { value: 81 });
    t.clock.advance(5 * 60_000);
    await waitFor(async () => (await t.request('GET', '/api/generator/history')).body[0]?.stop_time !== null);
    const [run] = (await t.request('GET', '/api/generator/history')).body;
    expect(run).toMatchObject({ trigger_type: 'soc', trigger_value: 24, stop_reason: 'soc', stop_value: 81 });
    const samples = await t.request('GET', '/api/conditions/samples?source=soc&hours=1');
    expect(samples.body.samples.map((s: { value: number }) => s.value)).toEqual([24, 81]);
  });

  it('the dev mode fakes any configured source; Prometheus shows values, states and countdowns', async () => {
    t = await testApp(db(), LAN);
    createControllerMetrics().register(t.app.metrics.registry, t.svc, {
      lastSent: null,
    } as unknown as HeartbeatPublisher);
    await t.request('PUT', '/api/conditions/config', config);
    expect((await t.request('POST', '/api/dev/conditions/battery_voltage', { value: 51.2 })).status).toBe(
      200,
    );
    expect((await t.request('POST', '/api/dev/conditions/ac_load', { value: 1 })).status).toBe(409);
    await t.request('POST', '/api/dev/conditions/soc', { value: 25 });
    expect(await sample('controller_condition_source_value', 'source="battery_voltage"')).toBe(51.2);
    expect(await sample('controller_condition_source_stale', 'source="soc"')).toBe(0);
    expect(await sample('controller_condition_active', 'condition="soc"')).toBe(0);
    expect(await sample('controller_condition_countdown_seconds', 'pending="start"')).toBe(60);
  });
});
