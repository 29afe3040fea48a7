import type { NodeKeyStore } from '../domain/node-report-gate.js';
import type { Database } from './connection.js';

/** The pinned relay node keys, in `controller.relaynode_keys`. */
export class SqlNodeKeyStore implements NodeKeyStore {
  constructor(private readonly database: Pick<Database, 'query'>) {}

  async get(nodeId: string): Promise<string | null> {
    const rows = await this.database.query({
      name: 'relaynode_key_get',
      text: 'SELECT public_key FROM controller.relaynode_keys WHERE relaynode_id = $1',
      params: [nodeId],
    });
    return rows[0] ? String(rows[0].public_key) : null;
  }

  /** First contact wins: a key already pinned is never replaced here (only forget() removes it). */
  async pin(nodeId: string, publicKey: string, at: number): Promise<void> {
    await this.database.query({
      name: 'relaynode_key_pin',
      text: `INSERT INTO controller.relaynode_keys (relaynode_id, public_key, pinned_at)
             VALUES ($1, $2, $3) ON CONFLICT (relaynode_id) DO NOTHING`,
      params: [nodeId, publicKey, at],
    });
  }

  async forget(nodeId: string): Promise<void> {
    await this.database.query({
      name: 'relaynode_key_forget',
      text: 'DELETE FROM controller.relaynode_keys WHERE relaynode_id = $1',
      params: [nodeId],
    });
  }
}
