import { createServer } from 'node:net';
import { startBroker } from '@outpost/broker';
import { FleetState } from '@outpost/contracts';
import mqtt from 'mqtt';
import { describe, expect, it } from 'vitest';
import { startDashboard } from '../src/app.js';
import { silentLogger, testConfig, waitFor } from './helpers.js';

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

describe('broker not there yet', () => {
  it('serves an all-offline fleet, then follows the fleet once the broker comes up', async () => {
    const port = await freePort();
    const url = `mqtt://127.0.0.1:${port}`;
    const auth = { username: 'ops', password: 'outage-test-pass' };
    const dash = await startDashboard(testConfig({ mqttUrl: url, expectedSimulators: ['alpha'], auth }), {
      logger: silentLogger,
    });
    try {
      const headers = { authorization: `Basic ${Buffer.from('ops:outage-test-pass').toString('base64')}` };
      const health = (await (await fetch(`${dash.url}/health`, { headers })).json()) as { broker: string };
      expect(health.broker).toBe('disconnected');
      const before = FleetState.parse(await (await fetch(`${dash.url}/api/status`, { headers })).json());
      expect(before.simulators).toEqual([expect.objectContaining({ id: 'alpha', online: false })]);
      const broker = await startBroker({ port, wsPort: false, host: '127.0.0.1' });
      try {
        await waitFor(() => dash.bus.connected, 8000, 'dashboard reconnected');
        const pub = await mqtt.connectAsync(url, { clientId: 'outage-publisher' });
        const hb = {
          sim_reachable: false,
          receiving_udp: false,
          uptime_seconds: 3,
          mode: 'rebroadcaster',
          running: false,
          lat: 10,
          lon: 20,
          timestamp_ms: Date.now(),
        };
        // Until the dashboard's subscriptions are in place the first heartbeats may be missed, as at 1 Hz.
        await waitFor(
          () => {
            void pub.publishAsync('outpost/simulator/alpha/heartbeat', JSON.stringify(hb));
            return dash.fleet.get('alpha', Date.now())?.online;
          },
          8000,
          'alpha online',
        );
        await pub.endAsync();
      } finally {
        await dash.close();
        await broker.close();
      }
    } finally {
      await dash.close();
    }
  }, 20_000);
});
