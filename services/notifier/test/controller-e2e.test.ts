/**
 * The notifier and a real controller process on one broker: a start through the controller's REST
 * API becomes a rendered notification, and events raised while the notifier is down are delivered
 * once it is back (persistent MQTT session).
 */
import { startHttpPeer } from '@outpost/notification-senders/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { formatTime } from '../src/domain/templates.js';
import { controllerProcesses } from './helpers/controller-process.js';
import { freshPostgres } from './helpers/databases.js';
import { client, embeddedBroker, eventually, launchNotifier } from './helpers/notifier.js';

const pg = await freshPostgres();
afterAll(() => pg.drop());
const startController = controllerProcesses(() => pg.url);

describe('notifications from a real controller', () => {
  it('renders the configured template for a start, and delivers starts and stops raised while the notifier was down', async () => {
    const broker = await embeddedBroker();
    const peer = await startHttpPeer();
    const db = { databaseUrl: pg.url };
    const controller = await startController(broker.url);
    try {
      let notifier = await launchNotifier({ mqttUrl: broker.url, ...db });
      await eventually(async () => notifier.bus.connected);
      const api = await client(notifier.url);
      const channel = (
        await api.post('/api/notifications/channels', {
          name: 'ops hook',
          channel_type: 'webhook',
          config: { url: `${peer.url}/hook` },
        })
      ).body as { id: number };
      const setting = (event: string, title: string, body: string) =>
        api.put(`/api/system-notifications/${event}`, {
          enabled: true,
          channel_ids: [channel.id],
          group_ids: [],
          title_template: title,
          body_template: body,
        });
      expect((await setting('generator_started', 'Run {{run_id}} started', 'at {{start_time}}')).status).toBe(
        200,
      );
      expect(
        (
          await setting(
            'generator_stopped',
            'Run {{run_id}} stopped',
            '{{reason}} after {{runtime}}, {{fuel_gallons}} gal',
          )
        ).status,
      ).toBe(200);

      expect((await controller.call('POST', '/api/generator/arm')).status).toBe(200);
      const started = await controller.call('POST', '/api/generator/start', { notes: 'e2e' });
      expect(started.status).toBe(200);
      const [first] = await peer.waitFor(1, 15_000);
      expect(first!.json).toMatchObject({
        title: `Run ${started.body.run_id} started`,
        body: `at ${formatTime(started.body.start_time)}`,
      });
      expect((await controller.call('POST', '/api/generator/stop', { reason: 'e2e' })).status).toBe(200);
      await peer.waitFor(2, 15_000);
      expect(peer.requests[1]!.json).toMatchObject({ title: `Run ${started.body.run_id} stopped` });

      // Notifier down: a whole run happens without it.
      await notifier.close();
      const second = await controller.call('POST', '/api/generator/start', {});
      expect(second.status).toBe(200);
      expect((await controller.call('POST', '/api/generator/stop', {})).status).toBe(200);
      await new Promise((r) => setTimeout(r, 300));
      expect(peer.requests).toHaveLength(2);

      notifier = await launchNotifier({ mqttUrl: broker.url, ...db });
      try {
        await peer.waitFor(4, 20_000);
        const late = peer.requests.slice(2).map((r) => r.json as { title: string; body: string });
        // Delivered after the restart, in the order the run happened.
        expect(late.map((m) => m.title)).toEqual([
          `Run ${second.body.run_id} started`,
          `Run ${second.body.run_id} stopped`,
        ]);
        const stopped = late.find((m) => m.title.endsWith('stopped'))!;
        expect(stopped.body).toMatch(/^manual after \d+s, \d+\.\d\d gal$/);
      } finally {
        await notifier.close();
      }
    } finally {
      controller.stop();
      await peer.close();
      await broker.close();
    }
  }, 120_000);
});
