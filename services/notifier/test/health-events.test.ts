import { startHttpPeer } from '@outpost/notification-senders/testing';
import { ManualClock } from '@outpost/runtime/clock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NotifierDatabase, openDatabase } from '../src/db/client.js';
import { DrizzleNotifierRepo } from '../src/db/repo.js';
import { createDeliver } from '../src/delivery/deliver.js';
import { Dispatcher } from '../src/domain/dispatcher.js';
import { NotifierService } from '../src/domain/service.js';
import { freshPostgres } from './helpers/databases.js';

const silent = { info() {}, warn() {}, error() {} };
const pg = await freshPostgres();
afterAll(() => pg.drop());

const AT = 1767225600;
/** The controller's generator-health events, as its outbox publishes them. */
const EVENTS = [
  {
    event: 'fail_to_start',
    data: {
      timestamp: AT,
      status: 'alarm',
      details: 'no running feedback within 60 s of relay ON',
      run_id: 3,
    },
    expect: ['Generator failed to start', 'no running feedback within 60 s of relay ON (status: alarm'],
  },
  {
    event: 'unexpected_stop',
    data: {
      timestamp: AT,
      status: 'alarm',
      details: 'running feedback fell while the run was commanded',
      run_id: 4,
    },
    expect: ['Generator stopped unexpectedly', 'during run 4: running feedback fell'],
  },
  {
    event: 'external_run',
    data: { run_id: 5, trigger: 'external', start_time: AT },
    expect: ['Generator running without a command', 'at 2026-01-01 00:00:00 UTC; recorded as run 5'],
  },
  {
    event: 'maintenance_due',
    data: {
      timestamp: AT,
      status: 'due',
      details: 'Oil and oil filter is due (at 100 engine hours)',
      item_id: 1,
    },
    expect: ['Generator service due', 'Oil and oil filter is due (at 100 engine hours)'],
  },
  {
    event: 'disarmed_reminder',
    data: { timestamp: AT, status: 'reminder', details: 'automation has been disarmed for 24 h', hours: 24 },
    expect: ['Automation still disarmed', 'automation has been disarmed for 24 h'],
  },
  {
    event: 'genset_not_in_auto',
    data: {
      timestamp: AT,
      status: 'warning',
      details:
        "the generator's own controller is in Manual mode: a remote start closes the relay and the engine does not start",
      mode: 'manual',
    },
    expect: ["Generator's controller not in Auto", 'is in Manual mode'],
  },
  {
    event: 'genset_shutdown',
    data: {
      timestamp: AT,
      status: 'alarm',
      details: "the generator's controller raised a shutdown alarm: low_oil_pressure",
      alarm: 'genset_shutdown',
      alarms: ['low_oil_pressure'],
      run_id: 6,
    },
    expect: ["Generator's controller shutdown alarm", 'shutdown alarm: low_oil_pressure (status: alarm'],
  },
];

describe('generator health events reach people with their default templates', () => {
  let database: NotifierDatabase;
  let peer: Awaited<ReturnType<typeof startHttpPeer>>;
  let dispatcher: Dispatcher;

  beforeAll(async () => {
    database = await openDatabase(pg.url);
    const repo = new DrizzleNotifierRepo(database.db);
    peer = await startHttpPeer(() => undefined);
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    dispatcher = new Dispatcher({ repo, deliver: createDeliver({ timeoutMs: 2000 }), clock, logger: silent });
    await new NotifierService(repo, dispatcher, clock).createChannel({
      name: 'phone',
      channel_type: 'webhook',
      enabled: true,
      config: { url: `${peer.url}/phone`, method: 'POST', headers: {} },
    });
  });
  afterAll(async () => {
    dispatcher.stop();
    await peer.close();
    await database.close();
  });

  it.each(EVENTS)('$event', async ({ event, data, expect: texts }) => {
    const before = peer.requests.length;
    const result = await dispatcher.handleEvent({
      event,
      event_id: `health-${event}`,
      timestamp: AT,
      controller_id: 'main',
      data,
    });
    expect(result).toBe('dispatched');
    await dispatcher.settled();
    const got = peer.requests.slice(before);
    expect(got).toHaveLength(1);
    const sent = got[0]?.json as { title: string; body: string };
    expect(sent.title).toBe(texts[0]);
    expect(sent.body).toContain(texts[1]);
    expect(sent.body).not.toContain('{{');
  });
});
