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

const event = (event_id: string, data: Record<string, unknown> = {}) => ({
  event: 'generator_started',
  event_id,
  timestamp: 1767225600,
  controller_id: 'main',
  data: { run_id: 7, start_time: 1767225600, fuel_type: 'diesel', ...data },
});

describe('dispatcher on PostgreSQL', () => {
  let database: NotifierDatabase;
  let repo: DrizzleNotifierRepo;
  let peer: Awaited<ReturnType<typeof startHttpPeer>>;
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const deliver = createDeliver({ timeoutMs: 2000 });
  let dispatcher: Dispatcher;
  let service: NotifierService;
  let good: number;
  let bad: number;

  beforeAll(async () => {
    database = await openDatabase(pg.url);
    repo = new DrizzleNotifierRepo(database.db);
    peer = await startHttpPeer((r) =>
      r.path === '/bad' ? { status: 500, body: 'provider down' } : undefined,
    );
    dispatcher = new Dispatcher({ repo, deliver, clock, logger: silent });
    service = new NotifierService(repo, dispatcher, clock);
    good = (
      await service.createChannel({
        name: 'good',
        channel_type: 'webhook',
        enabled: true,
        config: { url: `${peer.url}/good`, method: 'POST', headers: {} },
      })
    ).id;
    bad = (
      await service.createChannel({
        name: 'bad',
        channel_type: 'webhook',
        enabled: true,
        config: { url: `${peer.url}/bad`, method: 'POST', headers: {} },
      })
    ).id;
  });
  afterAll(async () => {
    dispatcher.stop();
    await peer.close();
    await database.close();
  });

  it('retries a failing channel with backoff until it ends as failed, while the other delivers once', async () => {
    await service.putSetting('generator_started', {
      enabled: true,
      channel_ids: [good, bad],
      group_ids: [],
      title_template: 'Run {{run_id}}',
      body_template: 'started {{start_time}}',
    });
    expect(await dispatcher.handleEvent(event('e-1'))).toBe('dispatched');
    await dispatcher.settled();
    const paths = () => peer.requests.map((r) => r.path);
    expect(paths().sort()).toEqual(['/bad', '/good']);
    expect(peer.requests.find((r) => r.path === '/good')!.json).toMatchObject({
      title: 'Run 7',
      body: 'started 2026-01-01 00:00:00 UTC',
      event: 'generator_started',
      event_id: 'e-1',
    });

    for (const wait of [5_000, 30_000, 120_000]) {
      clock.advance(wait - 1);
      await dispatcher.settled();
      const before = paths().length;
      clock.advance(1);
      await dispatcher.settled();
      expect(paths().length).toBe(before + 1);
    }
    expect(paths().filter((p) => p === '/bad')).toHaveLength(4);
    expect(paths().filter((p) => p === '/good')).toHaveLength(1);

    const history = (await repo.listDeliveries(20)).reverse();
    const badRows = history.filter((h) => h.channel_id === bad);
    expect(badRows.map((h) => [h.attempt, h.status])).toEqual([
      [1, 'retrying'],
      [2, 'retrying'],
      [3, 'retrying'],
      [4, 'failed'],
    ]);
    expect(badRows[3]!.error).toBe('webhook: HTTP 500');
    expect(history.filter((h) => h.channel_id === good).map((h) => h.status)).toEqual(['sent']);
    expect(await repo.listRetries()).toEqual([]);
    clock.advance(3_600_000);
    await dispatcher.settled();
    expect(paths()).toHaveLength(5);
  });

  it('an HOA selector move reaches people: the first channel gets it with its default text', async () => {
    const before = peer.requests.filter((r) => r.path === '/good').length;
    const moved = {
      event: 'hoa_position_changed',
      event_id: 'hoa-1',
      timestamp: 1767225600,
      controller_id: 'main',
      data: {
        timestamp: 1767225600,
        status: 'quiet',
        details: 'HOA selector moved from auto to quiet',
        position: 'quiet',
        previous: 'auto',
      },
    };
    expect(await dispatcher.handleEvent(moved)).toBe('dispatched');
    await dispatcher.settled();
    const got = peer.requests.filter((r) => r.path === '/good').slice(before);
    expect(got).toHaveLength(1);
    expect(JSON.stringify(got[0]?.json)).toContain(
      'HOA selector moved: HOA selector moved from auto to quiet',
    );
  });

  it('handles a redelivered event id once', async () => {
    const before = peer.requests.length;
    expect(await dispatcher.handleEvent(event('e-2'))).toBe('dispatched');
    expect(await dispatcher.handleEvent(event('e-2'))).toBe('duplicate');
    await dispatcher.settled();
    expect(peer.requests.length).toBe(before + 2);
    // Let the failing channel's retries run out (each is scheduled after the previous attempt).
    for (let i = 0; i < 4; i++) {
      clock.advance(600_000);
      await dispatcher.settled();
    }
    expect(await repo.listRetries()).toEqual([]);
  });

  it('a restart resumes owed retries from the database', async () => {
    await service.putSetting('generator_stopped', {
      enabled: true,
      channel_ids: [bad],
      group_ids: [],
      title_template: 'stop',
      body_template: '{{reason}}',
    });
    await dispatcher.handleEvent({ ...event('e-3'), event: 'generator_stopped', data: { reason: 'manual' } });
    await dispatcher.settled();
    dispatcher.stop();
    peer.respond = () => undefined;
    dispatcher = new Dispatcher({ repo, deliver, clock, logger: silent });
    service = new NotifierService(repo, dispatcher, clock);
    expect(await dispatcher.resume()).toBe(1);
    clock.advance(5_000);
    await dispatcher.settled();
    const rows = (await repo.listDeliveries(2)).reverse();
    expect(rows.map((r) => [r.source, r.attempt, r.status])).toEqual([
      ['generator_stopped', 1, 'retrying'],
      ['generator_stopped', 2, 'sent'],
    ]);
  });

  it('reaches channels through enabled groups only, skips disabled channels and disabled events', async () => {
    const third = await service.createChannel({
      name: 'third',
      channel_type: 'webhook',
      enabled: true,
      config: { url: `${peer.url}/third`, method: 'POST', headers: {} },
    });
    const off = await service.createChannel({
      name: 'off',
      channel_type: 'webhook',
      enabled: false,
      config: { url: `${peer.url}/off`, method: 'POST', headers: {} },
    });
    const g1 = await service.createGroup({
      name: 'ops',
      description: '',
      channel_ids: [third.id, off.id],
      enabled: true,
    });
    const g2 = await service.createGroup({
      name: 'muted',
      description: '',
      channel_ids: [good],
      enabled: false,
    });
    await service.putSetting('slave_disconnected', {
      enabled: true,
      channel_ids: [],
      group_ids: [g1.id, g2.id],
      title_template: 'Lost',
      body_template: '{{details}}',
    });
    const before = peer.requests.length;
    await dispatcher.handleEvent({
      ...event('e-4'),
      event: 'slave_disconnected',
      data: { status: 'disconnected', details: 'hb lost' },
    });
    await dispatcher.settled();
    expect(peer.requests.slice(before).map((r) => r.path)).toEqual(['/third']);

    await service.putSetting('slave_disconnected', {
      enabled: false,
      channel_ids: [third.id],
      group_ids: [],
      title_template: 'Lost',
      body_template: '',
    });
    expect(await dispatcher.handleEvent({ ...event('e-5'), event: 'slave_disconnected' })).toBe('disabled');
    expect(await dispatcher.handleEvent({ ...event('e-6'), event: 'generator.started.manual' })).toBe(
      'ignored',
    );

    await service.deleteChannel(third.id);
    expect((await service.getGroup(g1.id)).channel_ids).toEqual([off.id]);
    expect((await service.getSetting('slave_disconnected')).channel_ids).toEqual([]);
  });
});

describe('channel writes that fail', () => {
  it('report a database error without the secrets of the query parameters', async () => {
    const database = await openDatabase(pg.url);
    const repo = new DrizzleNotifierRepo(database.db);
    await database.close();
    const err = await repo
      .createChannel({
        name: 'x',
        channel_type: 'telegram',
        config: { bot_token: '1:TOPSECRETTOKEN', chat_id: '1' },
        enabled: true,
        created_at: 0,
        updated_at: 0,
      })
      .catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/^database error while saving a channel/);
    expect(JSON.stringify(err, Object.getOwnPropertyNames(err))).not.toContain('TOPSECRET');
  });
});

// A backlog replayed by the broker after a restart arrives all at once: a channel must still get
// "started" before "stopped", even when the first delivery is the slow one.
describe('notification order per channel', () => {
  it('delivers a burst of events to each channel in event order, the slow first one included', async () => {
    // Its own database: the channels and settings above must not get these events.
    const own = await freshPostgres();
    const database = await openDatabase(own.url);
    const repo = new DrizzleNotifierRepo(database.db);
    const peer = await startHttpPeer();
    const real = createDeliver({ timeoutMs: 2000 });
    const deliver: typeof real = async (channel, message, context) => {
      if (message.title.startsWith('started')) await new Promise((r) => setTimeout(r, 150));
      return real(channel, message, context);
    };
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const dispatcher = new Dispatcher({ repo, deliver, clock, logger: silent });
    const service = new NotifierService(repo, dispatcher, clock);
    try {
      const ids: number[] = [];
      for (const name of ['a', 'b']) {
        const config = { url: `${peer.url}/${name}`, method: 'POST' as const, headers: {} };
        ids.push((await service.createChannel({ name, channel_type: 'webhook', enabled: true, config })).id);
      }
      for (const [name, title] of [
        ['generator_started', 'started {{run_id}}'],
        ['generator_stopped', 'stopped {{run_id}}'],
      ] as const) {
        await service.putSetting(name, {
          enabled: true,
          channel_ids: ids,
          group_ids: [],
          title_template: title,
          body_template: '-',
        });
      }
      const burst = [];
      for (const run of [1, 2]) {
        burst.push(dispatcher.handleEvent(event(`s-${run}`, { run_id: run })));
        burst.push(
          dispatcher.handleEvent({ ...event(`t-${run}`, { run_id: run }), event: 'generator_stopped' }),
        );
      }
      expect(await Promise.all(burst)).toEqual(['dispatched', 'dispatched', 'dispatched', 'dispatched']);
      await dispatcher.settled();
      for (const path of ['/a', '/b']) {
        expect(
          peer.requests.filter((r) => r.path === path).map((r) => (r.json as { title: string }).title),
        ).toEqual(['started 1', 'stopped 1', 'started 2', 'stopped 2']);
      }
    } finally {
      dispatcher.stop();
      await peer.close();
      await database.close();
      await own.drop();
    }
  });
});
