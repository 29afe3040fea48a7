/**
 * The notifier and a real controller process on one broker: a start through the controller's REST
 * API becomes a rendered notification, and events raised while the notifier is down are delivered
 * once it is back (persistent MQTT session).
 */
import { startHttpPeer } from '@outpost/notification-senders/testing';
import { request as httpRequest } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { formatTime } from '../src/domain/templates.js';
import { controllerProcesses } from './helpers/controller-process.js';
import { freshPostgres } from './helpers/databases.js';
import {
  client,
  embeddedBroker,
  eventually,
  launchNotifier,
  NOTIFIER_API_SECRET,
  token,
} from './helpers/notifier.js';

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

  it('a method the notifier has no route for (TRACE, OPTIONS, PATCH) is a 405 with its Allow, not a 502', async () => {
    const broker = await embeddedBroker();
    const notifier = await launchNotifier({ mqttUrl: broker.url, databaseUrl: pg.url });
    const controller = await startController(broker.url, {
      NOTIFIER_URL: notifier.url,
      NOTIFIER_API_SECRET,
    });
    // node:http, since fetch refuses to send TRACE at all.
    const send = (method: string, path: string) =>
      new Promise<{ status: number; allow?: string; body: { detail?: string } }>((resolve, reject) => {
        const url = new URL(controller.url + path);
        const req = httpRequest(
          {
            host: url.hostname,
            port: url.port,
            method,
            path,
            headers: { authorization: `Bearer ${controller.token}` },
          },
          (res) => {
            let text = '';
            res.on('data', (d) => {
              text += d;
            });
            res.on('end', () =>
              resolve({ status: res.statusCode ?? 0, allow: res.headers.allow, body: JSON.parse(text) }),
            );
          },
        );
        req.on('error', reject);
        req.end();
      });
    try {
      for (const method of ['TRACE', 'OPTIONS', 'PATCH']) {
        const res = await send(method, '/api/notifications/channels');
        expect(res.status, method).toBe(405);
        expect(res.allow, method).toBe('GET, HEAD, POST');
        expect(res.body.detail, method).toBe(`Method ${method} not allowed on /api/notifications/channels`);
      }
      // The notifier itself, asked directly, says the same.
      const direct = await fetch(`${notifier.url}/api/notifications/channels`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${await token()}` },
      });
      expect(direct.status).toBe(405);
      expect(direct.headers.get('allow')).toBe('GET, HEAD, POST');
    } finally {
      controller.stop();
      await notifier.close();
      await broker.close();
    }
  }, 120_000);
});
