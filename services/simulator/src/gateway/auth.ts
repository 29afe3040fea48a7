import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Clock } from '@outpost/runtime';
import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import { RateLimiterMemory } from 'rate-limiter-flexible';

export const SESSION_COOKIE = 'gps_session';
/** Sessions unused for this long are forgotten server-side (the cookie itself lasts until the browser closes). */
export const SESSION_IDLE_MS = 24 * 3600 * 1000;
const MAX_SESSIONS = 10_000;

interface Session {
  username: string;
  lastSeen: number;
}

/** In-memory cookie sessions: a restart logs everyone out, which suits a single-box simulator. */
export class SessionStore {
  private readonly sessions = new Map<string, Session>();

  constructor(private readonly clock: Clock) {}

  create(username: string): string {
    if (this.sessions.size >= MAX_SESSIONS) {
      const oldest = this.sessions.keys().next().value;
      if (oldest !== undefined) this.sessions.delete(oldest);
    }
    const token = randomBytes(32).toString('base64url');
    this.sessions.set(token, { username, lastSeen: this.clock.now() });
    return token;
  }

  /** The session's user, refreshing its idle timer; null when unknown or expired. */
  touch(token: string | undefined): string | null {
    if (!token) return null;
    const s = this.sessions.get(token);
    if (!s) return null;
    const now = this.clock.now();
    if (now - s.lastSeen > SESSION_IDLE_MS) {
      this.sessions.delete(token);
      return null;
    }
    s.lastSeen = now;
    // Re-insert so iteration order stays least-recently-used first.
    this.sessions.delete(token);
    this.sessions.set(token, s);
    return s.username;
  }

  destroy(token: string | undefined): void {
    if (token) this.sessions.delete(token);
  }

  get size(): number {
    return this.sessions.size;
  }
}

/** Equality that takes the same time whatever the first differing character is. */
export function safeEqual(a: string, b: string): boolean {
  const da = createHash('sha256').update(a, 'utf8').digest();
  const db = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(da, db);
}

/**
 * Failed logins per client address (rate-limiter-flexible, in memory): past the limit within the
 * window, 429 until the window that the first failure opened has passed. A success clears the count.
 */
export class LoginLimiter {
  private readonly failures: RateLimiterMemory | null;

  constructor(
    private readonly maxFailures: number,
    windowSeconds: number,
  ) {
    this.failures =
      maxFailures > 0 ? new RateLimiterMemory({ points: maxFailures, duration: windowSeconds }) : null;
  }

  /** Seconds to wait before another attempt is allowed, or 0. */
  async retryAfter(client: string): Promise<number> {
    const used = await this.failures?.get(client);
    // An expired window can still be read until the store's cleanup timer removes it.
    if (!used || used.consumedPoints < this.maxFailures || used.msBeforeNext <= 0) return 0;
    return Math.max(1, Math.ceil(used.msBeforeNext / 1000));
  }

  async fail(client: string): Promise<void> {
    await this.failures?.penalty(client, 1);
  }

  async succeed(client: string): Promise<void> {
    await this.failures?.delete(client);
  }
}

export function clientAddress(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

export function sessionToken(c: Context): string | undefined {
  return getCookie(c, SESSION_COOKIE);
}
