import { ManualClock } from '@outpost/runtime/clock';
import type { generator } from '@outpost/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/connection.js';
import { SqlControllerRepository } from '../../src/db/controller-repo.js';
import { OutboxStore } from '../../src/db/outbox-store.js';
import { outbox } from '../../src/db/schema.js';
import { OutboxDispatcher } from '../../src/outbox/dispatcher.js';
import { PendingMarks } from '../../src/outbox/pending-marks.js';
import { silentLogger } from '../helpers/harness.js';
import { type TestDatabase, testDatabase } from '../helpers/databases.js';

/** A broker stand-in that can go away; what it acknowledged, in order. */
class Sink {
  connected = true;
  sent: string[] = [];
  ids: string[] = [];
  async publish(e: generator.ControllerEvent): Promise<void> {
    if (!this.connected) throw new Error('not connected');
    this.sent.push(e.event);
    this.ids.push(e.event_id);
  }
}

// Events this process commits are published from memory once the dispatcher has caught up with
// the outbox; whichever way they go, each goes once, in commit order, and ends marked in the table.
describe('outbox dispatch on PostgreSQL', () => {
  let tdb: TestDatabase;
  let database: Database;
  const clock = new ManualClock(Date.UTC(2026, 5, 1, 12));

  beforeAll(async () => {
    tdb = await testDatabase();
    database = await tdb.open();
  }, 30_000);

  afterAll(async () => {
    await database?.close();
    await tdb?.cleanup();
  });

  const STAMP_DELAY_MS = 1000;

  /** Wired as the service wires it; `statements` names every statement sent to the database. */
  const setup = () => {
    const sink = new Sink();
    const statements: string[] = [];
    const db = {
      ...database,
      query: (s: Parameters<Database['query']>[0]) => {
        statements.push(s.name);
        return database.query(s);
      },
    };
    const store = new OutboxStore(database.db, db);
    const marks = new PendingMarks((groups) => store.stampSent(groups), clock, STAMP_DELAY_MS);
    const dispatcher = new OutboxDispatcher({
      store,
      sink,
      marks,
      clock,
      logger: silentLogger,
      controllerId: 'main',
    });
    const repo = new SqlControllerRepository(db, clock, (rows) => dispatcher.committed(rows), marks);
    const emit = async (...names: string[]) => {
      await repo.commit({ label: 'events', events: () => names.map((event) => ({ event, data: {} })) });
      await dispatcher.kick();
    };
    /** The stamp timer fires; resolves once what it writes is written. */
    const quiet = async () => {
      clock.advance(STAMP_DELAY_MS);
      await dispatcher.flushMarks();
    };
    return { sink, dispatcher, emit, repo, quiet, statements };
  };

  const unmarked = async () =>
    (await database.db.select().from(outbox)).filter(
      (r) => r.published_at === null || r.fanned_out_at === null,
    );

  const unmarkedEvents = async () => (await unmarked()).map((r) => r.event);

  it('publishes each event once, in order, through a broker outage and back', async () => {
    const { sink, dispatcher, emit, quiet } = setup();
    await dispatcher.kick(true);
    await emit('a', 'b');
    await emit('c');
    expect(sink.sent).toEqual(['a', 'b', 'c']);
    await quiet();
    expect(await unmarked()).toEqual([]);

    sink.connected = false;
    await emit('d', 'e');
    expect(sink.sent).toEqual(['a', 'b', 'c']);
    expect((await unmarked()).map((r) => r.event)).toEqual(['d', 'e']);

    sink.connected = true;
    await emit('f');
    expect(sink.sent).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    await emit('g');
    await dispatcher.kick(true);
    expect(sink.sent).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g']);
    await quiet();
    expect(await unmarked()).toEqual([]);
  });

  it('the next commit that adds events stamps those already published: no statement of their own', async () => {
    const { sink, dispatcher, emit, quiet, statements } = setup();
    await dispatcher.kick(true);
    statements.length = 0;
    await emit('h');
    await emit('i');
    await emit('j');
    expect(sink.sent).toEqual(['h', 'i', 'j']);
    // h and i rode on the commits of i and j; j waits for the next commit or the timer.
    expect(await unmarkedEvents()).toEqual(['j']);
    expect(statements).toHaveLength(3);
    expect(statements.slice(1).every((n) => n.endsWith('m'))).toBe(true);
    await quiet();
    expect(await unmarked()).toEqual([]);
    expect(statements).toEqual([...statements.slice(0, 3), 'outpost_outbox_stamp_sent']);
  });

  it('a sweep writes waiting stamps before it reads the outbox back, so nothing goes out twice', async () => {
    const { sink, dispatcher, emit, quiet } = setup();
    await dispatcher.kick(true);
    await emit('k');
    expect(await unmarkedEvents()).toEqual(['k']);
    await dispatcher.kick(true);
    expect(sink.sent).toEqual(['k']);
    expect(await unmarked()).toEqual([]);
    await quiet();
    expect(sink.sent).toEqual(['k']);
  });

  it('stamps taken by a commit that fails wait for the next write', async () => {
    const { sink, dispatcher, emit, repo, quiet } = setup();
    await dispatcher.kick(true);
    await emit('l');
    // A run whose reserved id is already taken: the whole statement fails, stamps included.
    const taken = { id: 1 };
    await repo.commit({ label: 'run', reserveRunId: taken });
    const createRun = {
      start_time: 0,
      trigger_type: 'manual',
      notes: null,
      fuel_type_at_run: 'diesel',
      load_at_run: 50,
      gph_at_run: 1,
      scheduled_run_id: null,
    } as const;
    await repo.commit({ label: 'run', createRun: { ref: taken, ...createRun } });
    await expect(
      repo.commit({
        label: 'run again',
        createRun: { ref: taken, ...createRun },
        events: () => [{ event: 'never', data: {} }],
      }),
    ).rejects.toThrow();
    expect(await unmarkedEvents()).toEqual(['l']);
    await quiet();
    expect(await unmarked()).toEqual([]);
    expect(sink.sent).toEqual(['l']);
  });

  it('a new dispatcher (a restart) sends what the last one left unpublished or unstamped', async () => {
    const offline = setup();
    offline.sink.connected = false;
    await offline.emit('left-behind');
    offline.dispatcher.stop();

    const crashed = setup();
    await crashed.dispatcher.kick(true);
    expect(crashed.sink.sent).toEqual(['left-behind']);
    await crashed.emit('published, stamp lost');
    crashed.dispatcher.stop();

    const { sink, dispatcher, emit, quiet } = setup();
    await dispatcher.kick(true);
    await emit('after');
    // A stamp lost with the process sends its event again, with the same event_id.
    expect(sink.sent).toEqual(['published, stamp lost', 'after']);
    expect(sink.ids[0]).toBe(crashed.sink.ids[1]);
    await quiet();
    expect(await unmarked()).toEqual([]);
  });
});
