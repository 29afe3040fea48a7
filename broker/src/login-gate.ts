import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { RateLimiterMemory } from 'rate-limiter-flexible';

export interface LoginGateOptions {
  /** Failed logins one address may cause per window before its unknown logins are refused unheard. */
  failuresPerIp: number;
  windowSeconds: number;
  /** scrypt runs at once (each holds a libuv thread and 16 MiB). */
  maxConcurrent: number;
  /** Logins waiting for a run; more are refused at once. */
  maxQueued: number;
}

export const DEFAULT_LOGIN_GATE: LoginGateOptions = {
  failuresPerIp: 20,
  windowSeconds: 60,
  maxConcurrent: 2,
  maxQueued: 32,
};

/** ok: logged in. bad: wrong credentials. busy: the scrypt queue is full. blocked: too many failures. */
export type LoginOutcome = 'ok' | 'bad' | 'busy' | 'blocked';

/**
 * In front of the deliberately slow password check: a flood of CONNECTs must not delay a service's
 * reconnect behind thousands of scrypt runs.
 *
 * - A username and password that already passed scrypt in this process are recognised by a keyed
 *   HMAC (random key, never stored), compared in constant time: a reconnect costs no scrypt and is
 *   never queued, rate limited or refused as busy.
 * - Failures are counted per address (rate-limiter-flexible); past the limit, that address's unknown
 *   logins are refused without running scrypt until the window passes.
 * - At most `maxConcurrent` scrypt runs, `maxQueued` waiting; beyond that a login is refused at once.
 */
export class LoginGate {
  private readonly key = randomBytes(32);
  private readonly known = new Map<string, Buffer>();
  private readonly failures: RateLimiterMemory;
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly opts: LoginGateOptions = DEFAULT_LOGIN_GATE) {
    this.failures = new RateLimiterMemory({ points: opts.failuresPerIp, duration: opts.windowSeconds });
  }

  async login(
    ip: string,
    username: string,
    password: Buffer,
    verify: () => Promise<boolean>,
  ): Promise<LoginOutcome> {
    const mac = this.mac(username, password);
    const seen = this.known.get(username);
    if (seen && timingSafeEqual(seen, mac)) return 'ok';

    const used = await this.failures.get(ip);
    if (used && used.consumedPoints >= this.opts.failuresPerIp) return 'blocked';
    if (this.running >= this.opts.maxConcurrent && this.waiting.length >= this.opts.maxQueued) return 'busy';

    await this.slot();
    let good: boolean;
    try {
      good = await verify();
    } finally {
      this.release();
    }
    if (good) {
      this.known.set(username, mac);
      return 'ok';
    }
    await this.failures.consume(ip).catch(() => undefined);
    return 'bad';
  }

  /** scrypt runs in progress and waiting (for metrics and tests). */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  private mac(username: string, password: Buffer): Buffer {
    return createHmac('sha256', this.key).update(username).update('\u0000').update(password).digest();
  }

  private slot(): Promise<void> {
    if (this.running < this.opts.maxConcurrent) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running--;
  }
}
