import { auditEntries, writeAudit } from './audit-store.js';
import type { Db } from './connection.js';

/** One operator action as the audit trail records it (`at` in ms, `from` the client address). */
export interface AuditEntry {
  at: number;
  who: string;
  from: string;
  action: string;
  details?: Record<string, unknown>;
}

/** The audit trail as the gateway sees it, so routes never hold the database handle. */
export class AuditLog {
  constructor(private readonly db: Db) {}

  write(entry: AuditEntry): Promise<void> {
    return writeAudit(this.db, entry);
  }

  /** The newest `limit` entries, newest first, times in Unix seconds. */
  entries(limit: number) {
    return auditEntries(this.db, limit);
  }
}
