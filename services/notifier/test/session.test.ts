import { startHttpPeer } from '@outpost/notification-senders/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { freshPostgres } from './helpers/databases.js';
import { startMosquitto } from './helpers/mosquitto.js';
import { client, embeddedBroker, eventually, launchNotifier, publishEvent } from './helpers/notifier.js';

const pg = await freshPostgres();
const mosquitto = await startMosquitto();
afterAll(async () => {
  await mosquitto?.close();
  await pg.drop();
});

const brokers = [
  { name: 'embedded aedes', start: async () => embeddedBroker() },
  ...(mosquitto
    ? [{ name: 'mosquitto', start: async () => ({ url: mosquitto.url, close: async () => {} }) }]
    : []),
];

describe.each(brokers)('persistent session on $name', ({ start }) => {
  it('events published while the notifier is down are delivered after it restarts, once each', async () => {
    const broker = await start();
    const peer = await startHttpPeer();
    // The same database across the restart.
    const db = { databaseUrl: pg.url };
    try {
      const first = await launchNotifier({ mqttUrl: broker.url, ...db });
      await eventually(async () => first.bus.connected);
      const api = await client(first.url);
      const ch = (
        await api.post('/api/notifications/channels', {
          name: 'hook',
          channel_type: 'webhook',
          config: { url: `${peer.url}/hook` },
        })
      ).body;
      const put = await api.put('/api/system-notifications/generator_started', {
        enabled: true,
        channel_ids: [ch.id],
        group_ids: [],
        title_template: 'Run {{run_id}}',
        body_template: '{{start_time}}',
      });
      expect(put.status).toBe(200);
      await first.close();

      const e1 = await publishEvent(broker.url, 'generator_started', { run_id: 1, start_time: 1767225600 });
      const e2 = await publishEvent(broker.url, 'generator_started', { run_id: 2, start_time: 1767229200 });
      expect(peer.requests).toHaveLength(0);

      const second = await launchNotifier({ mqttUrl: broker.url, ...db });
      try {
        await peer.waitFor(2, 10_000);
        await second.dispatcher.settled();
        const got = peer.requests.map((r) => r.json as { title: string; event_id: string });
        expect(got.map((g) => g.title).sort()).toEqual(['Run 1', 'Run 2']);
        expect(got.map((g) => g.event_id).sort()).toEqual([e1, e2].sort());
        // A redelivery of an already handled event id is not notified again.
        await publishEvent(broker.url, 'generator_started', { run_id: 1 }, e1);
        await publishEvent(broker.url, 'generator_started', { run_id: 3 });
        await peer.waitFor(3);
        await second.dispatcher.settled();
        expect(peer.requests.map((r) => (r.json as { title: string }).title)).toEqual(
          expect.arrayContaining(['Run 3']),
        );
        expect(peer.requests).toHaveLength(3);
      } finally {
        await second.close();
      }
    } finally {
      await peer.close();
      await broker.close();
    }
  });
});
