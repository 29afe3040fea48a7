import { ConditionsConfig } from '@outpost/contracts/conditions';
import { eq } from 'drizzle-orm';
import type { Db } from './connection.js';
import { startConditions } from './schema.js';

const ROW = 1;

/** The start conditions' configuration: one row, replaced whole by PUT /api/conditions/config. */
export class SqlConditionsStore {
  constructor(private readonly db: Db) {}

  /** The stored configuration, or null when none was ever saved (no conditions). */
  async load(): Promise<ConditionsConfig | null> {
    const [row] = await this.db.select().from(startConditions).where(eq(startConditions.id, ROW));
    if (!row) return null;
    // Parsed again so defaults added by a later version fill in; a row that no longer parses is kept
    // out of force (the conditions stay off) rather than guessed at.
    const parsed = ConditionsConfig.safeParse(row.config);
    return parsed.success ? parsed.data : null;
  }

  async save(config: ConditionsConfig, now: number): Promise<void> {
    await this.db
      .insert(startConditions)
      .values({ id: ROW, config: config as unknown as Record<string, unknown>, updated_at: now })
      .onConflictDoUpdate({ target: startConditions.id, set: { config: config as never, updated_at: now } });
  }
}
