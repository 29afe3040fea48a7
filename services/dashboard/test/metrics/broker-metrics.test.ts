import { type RunningBroker, startBroker } from '@outpost/broker';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Dashboard, startDashboard } from '../../src/app.js';
import { silentLogger, testConfig } from '../helpers.js';

const value = (text: string, name: string): number | null => {
  const m = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : null;
};

describe('dashboard /metrics: fleet and broker figures', () => {
  let broker: RunningBroker;
  let dash: Dashboard;
  beforeAll(async () => {
    broker = await startBroker({ port: 0, wsPort: false, host: '127.0.0.1', statsIntervalMs: 200 });
    dash = await startDashboard(testConfig({ mqttUrl: broker.url, expectedSimulators: ['sim-a', 'sim-b'] }), {
      logger: silentLogger,
    });
  });
  afterAll(async () => {
    await dash?.close();
    await broker?.close();
  });

  it('mirrors the broker’s $SYS clients and message counts and shows the fleet by state', async () => {
    const sim = await mqtt.connectAsync(broker.url, { reconnectPeriod: 0 });
    await sim.publishAsync('outpost/simulator/sim-a/availability', 'online', { qos: 1, retain: true });
    const heartbeat = {
      sim_reachable: false,
      receiving_udp: false,
      uptime_seconds: 1,
      mode: null,
      running: true,
      lat: 47.45,
      lon: -122.3,
      timestamp_ms: Date.now(),
    };
    await sim.publishAsync('outpost/simulator/sim-a/heartbeat', JSON.stringify(heartbeat), { qos: 1 });
    let text = '';
    const scrape = async () => {
      text = await (await fetch(`${dash.url}/metrics`)).text();
      return text;
    };
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline) {
      await scrape();
      if (
        (value(text, 'dashboard_broker_clients_connected') ?? -1) >= 2 &&
        /state="online"[^}]*\} 1$/m.test(text)
      )
        break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(value(text, 'dashboard_broker_clients_connected')).toBeGreaterThanOrEqual(2);
    expect(value(text, 'dashboard_broker_messages_received_total')).toBeGreaterThan(0);
    expect(value(text, 'dashboard_broker_messages_sent_total')).toBeGreaterThan(0);
    expect(text).toMatch(/^# TYPE dashboard_broker_messages_received_total counter$/m);
    expect(text).toMatch(/^dashboard_simulators\{[^}]*state="online"[^}]*\} 1$/m);
    expect(text).toMatch(/^dashboard_simulators\{[^}]*state="offline"[^}]*\} 1$/m);
    await sim.publishAsync('outpost/simulator/sim-a/availability', '', { qos: 1, retain: true });
    await sim.endAsync();
  }, 10_000);
});
