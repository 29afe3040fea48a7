import { desc } from 'drizzle-orm';
import type { Db } from './connection.js';
import { auditLog } from './schema.js';

export async function auditEntries(db: Db, limit: number) {
  const rows = await db.select().from(auditLog).orderBy(desc(auditLog.id)).limit(limit);
  return rows.map((r) => ({
    id: r.id,
    at: Math.floor(r.at / 1000),
    who: r.who,
    from: r.source,
    action: r.action,
    details: r.details,
  }));
}

export async function writeAudit(
  db: Db,
  entry: { at: number; who: string; from: string; action: string; details?: Record<string, unknown> },
): Promise<void> {
  await db.insert(auditLog).values({
    at: entry.at,
    who: entry.who,
    source: entry.from,
    action: entry.action,
    details: entry.details ?? null,
  });
}
