import { count, eq, gte, lt } from 'drizzle-orm';
import type { Db } from './connection.js';
import { revokedTokens, users } from './schema.js';

export type UserRow = typeof users.$inferSelect;

export class AuthStore {
  constructor(private readonly db: Db) {}

  async userCount(): Promise<number> {
    const [row] = await this.db.select({ n: count() }).from(users);
    return Number(row?.n ?? 0);
  }

  async findUser(username: string): Promise<UserRow | null> {
    const [row] = await this.db.select().from(users).where(eq(users.username, username));
    return row ?? null;
  }

  async createUser(username: string, passwordHash: string, now: number): Promise<void> {
    await this.db
      .insert(users)
      .values({ username, password_hash: passwordHash, created_at: now, password_changed_at: now });
  }

  async setPassword(username: string, passwordHash: string, now: number): Promise<void> {
    await this.db
      .update(users)
      .set({ password_hash: passwordHash, password_changed_at: now })
      .where(eq(users.username, username));
  }

  async revoke(jti: string, expiresAt: number): Promise<void> {
    await this.db.insert(revokedTokens).values({ jti, expires_at: expiresAt }).onConflictDoNothing();
  }

  async allUsers(): Promise<UserRow[]> {
    return this.db.select().from(users);
  }

  async revokedSince(now: number): Promise<{ jti: string; expires_at: number }[]> {
    return this.db.select().from(revokedTokens).where(gte(revokedTokens.expires_at, now));
  }

  /** Revocations of tokens that have expired anyway are dropped. */
  async pruneRevoked(now: number): Promise<void> {
    await this.db.delete(revokedTokens).where(lt(revokedTokens.expires_at, now));
  }
}
