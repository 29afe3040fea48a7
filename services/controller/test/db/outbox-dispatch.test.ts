import { ManualClock } from '@outpost/runtime/clock';
import type { generator } from '@outpost/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/connection.js';
import { SqlControllerRepository } from '../../src/db/controller-repo.js';
import { OutboxStore } from '../../src/db/outbox-store.js';
import { outbox } from '../../src/db/schema.js';
import { OutboxDispatcher } from '../../src/outbox/dispatcher.js';
import { silentLogger } from '../helpers/harness.js';
import { pgliteTestDatabase, type TestDatabase } from '../helpers/databases.js';

/** A broker stand-in that can go away; what it acknowledged, in order. */
class Sink {
  connected = true;
  sent: string[] = [];
  async publish(e: generator.ControllerEvent): Promise<void> {
    if (!this.connected) throw new Error('not connected');
    this.sent.push(e.event);
  }
}

// Events this process commits are published from memory once the dispatcher has caught up with
// the outbox; whichever way they go, each goes once, in commit order, and ends marked in the table.
describe('outbox dispatch', () => {
  let tdb: TestDatabase;
  let database: Database;
  const clock = new ManualClock(Date.UTC(2026, 5, 1, 12));

  beforeAll(async () => {
    tdb = pgliteTestDatabase();
    database = await tdb.open();
  }, 30_000);

  afterAll(async () => {
    await database?.close();
    await tdb?.cleanup();
  });

  const setup = () => {
    const sink = new Sink();
    const dispatcher = new OutboxDispatcher({
      store: new OutboxStore(database.db, database),
      sink,
      clock,
      logger: silentLogger,
      controllerId: 'main',
    });
    const repo = new SqlControllerRepository(database, clock, (rows) => dispatcher.committed(rows));
    const emit = async (...names: string[]) => {
      await repo.commit({ label: 'events', events: () => names.map((event) => ({ event, data: {} })) });
      await dispatcher.kick();
    };
    return { sink, dispatcher, emit };
  };

  const unmarked = async () =>
    (await database.db.select().from(outbox)).filter(
      (r) => r.published_at === null || r.fanned_out_at === null,
    );

  it('publishes each event once, in order, through a broker outage and back', async () => {
    const { sink, dispatcher, emit } = setup();
    await dispatcher.kick(true);
    await emit('a', 'b');
    await emit('c');
    expect(sink.sent).toEqual(['a', 'b', 'c']);
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
    expect(await unmarked()).toEqual([]);
  });

  it('a new dispatcher (a restart) sends what the last one left unpublished, then goes on', async () => {
    const first = setup();
    first.sink.connected = false;
    await first.emit('left-behind');
    const { sink, dispatcher, emit } = setup();
    await dispatcher.kick(true);
    await emit('after');
    expect(sink.sent).toEqual(['left-behind', 'after']);
    expect(await unmarked()).toEqual([]);
  });
});
