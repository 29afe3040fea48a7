import type { Database } from './connection.js';

/**
 * The relay lease epochs, from the `lease_epoch` sequence: each start takes the next value, and a
 * controller that finds its relay node already past it (a restored backup, a second controller with
 * the same key) moves the sequence beyond what the node has seen.
 */
export class LeaseEpochStore {
  constructor(private readonly database: Pick<Database, 'query'>) {}

  async next(): Promise<string> {
    const rows = await this.database.query({
      name: 'lease_epoch_next',
      text: "SELECT nextval('controller.lease_epoch')::text AS epoch",
      params: [],
    });
    return String(rows[0]?.epoch);
  }

  /** The next epoch above `seen` (a decimal the relay node reported), moving the sequence past it. */
  async above(seen: string): Promise<string> {
    const rows = await this.database.query({
      name: 'lease_epoch_above',
      text: `SELECT setval('controller.lease_epoch',
                GREATEST($1::bigint, (SELECT last_value FROM controller.lease_epoch)) + 1)::text AS epoch`,
      params: [seen],
    });
    return String(rows[0]?.epoch);
  }
}
