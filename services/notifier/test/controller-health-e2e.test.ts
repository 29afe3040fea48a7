/**
 * Generator health from a real controller process to a delivered notification: a start nothing
 * confirms becomes "Generator failed to start", and feedback with no command becomes "Generator running
 * without a command", each with its default template, over the broker.
 */
import { startHttpPeer } from '@outpost/notification-senders/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { controllerProcesses } from './helpers/controller-process.js';
import { freshPostgres } from './helpers/databases.js';
import { client, embeddedBroker, eventually, launchNotifier } from './helpers/notifier.js';

const pg = await freshPostgres();
afterAll(() => pg.drop());
const startController = controllerProcesses(() => pg.url);

describe('generator health notifications from a real controller', () => {
  it('fail to start and a run without a command reach a channel with their default text', async () => {
    const broker = await embeddedBroker();
    const peer = await startHttpPeer();
    const controller = await startController(broker.url, { START_CONFIRM_SECONDS: '5' });
    const notifier = await launchNotifier({ mqttUrl: broker.url, databaseUrl: pg.url });
    try {
      await eventually(async () => notifier.bus.connected);
      const api = await client(notifier.url);
      // The first channel receives every event with its default template.
      await api.post('/api/notifications/channels', {
        name: 'phone',
        channel_type: 'webhook',
        config: { url: `${peer.url}/hook` },
      });
      expect(
        (await controller.call('PUT', '/api/health/settings', { running_feedback_source: 'api' })).status,
      ).toBe(200);
      expect((await controller.call('POST', '/api/generator/arm')).status).toBe(200);
      expect((await controller.call('POST', '/api/generator/start')).status).toBe(200);
      const titles = () => peer.requests.map((r) => (r.json as { title: string }).title);
      await eventually(async () => titles().includes('Generator failed to start'), 20_000);
      const failed = peer.requests.find(
        (r) => (r.json as { title: string }).title === 'Generator failed to start',
      );
      expect((failed?.json as { body?: string } | undefined)?.body).toContain(
        'no running feedback within 5 s of relay ON',
      );

      expect((await controller.call('POST', '/api/health/running-feedback', { running: true })).status).toBe(
        200,
      );
      await eventually(async () => titles().includes('Generator running without a command'), 20_000);
    } finally {
      controller.stop();
      await notifier.close();
      await peer.close();
      await broker.close();
    }
  }, 120_000);
});
