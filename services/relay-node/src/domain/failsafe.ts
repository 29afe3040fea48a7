import type { Clock, TimerHandle } from '@outpost/runtime/clock';
import { timeoutForInterval } from './lease.js';

/**
 * The independent failsafe: a deadline timer re-armed by every accepted heartbeat. A timer set for the
 * exact deadline (not a coarse poll) keeps the relay from outliving the controller by more than a few ms.
 */

export interface FailsafeSnapshot {
  running: boolean;
  /** ms, node clock; null before the first heartbeat. */
  lastHeartbeatMs: number | null;
  heartbeatCount: number;
  triggered: boolean;
  timeoutSeconds: number;
  heartbeatInterval: number | null;
  timeoutSource: 'genmaster' | 'config';
}

export interface FailsafeOptions {
  clock: Clock;
  /** FAILSAFE_TIMEOUT_SECONDS: applies until a heartbeat carries an interval. */
  defaultTimeoutSeconds: number;
  onTriggered: (snapshot: FailsafeSnapshot) => void;
  onRestored: (snapshot: FailsafeSnapshot) => void;
}

export class FailsafeMonitor {
  private running = false;
  private lastHeartbeatMs: number | null = null;
  private heartbeatCount = 0;
  private triggered = false;
  private interval: number | null = null;
  /** The duration of the last accepted lease, ms (at most the timeout). */
  private leaseMs: number | null = null;
  private timer: TimerHandle | null = null;

  constructor(private readonly opts: FailsafeOptions) {}

  start(): void {
    this.running = true;
    if (this.lastHeartbeatMs !== null) this.schedule();
  }

  stop(): void {
    this.running = false;
    this.opts.clock.clearTimeout(this.timer);
    this.timer = null;
  }

  get timeoutSeconds(): number {
    return this.interval === null ? this.opts.defaultTimeoutSeconds : timeoutForInterval(this.interval);
  }

  /** ms at which the lease runs out; null before the first heartbeat. */
  get deadlineMs(): number | null {
    if (this.lastHeartbeatMs === null) return null;
    return this.lastHeartbeatMs + (this.leaseMs ?? this.timeoutSeconds * 1000);
  }

  get isTriggered(): boolean {
    return this.triggered;
  }

  /**
   * True while a heartbeat was accepted within the timeout. Compared against the clock as well as the
   * timer, so a late timer callback can never leave a window where ON is accepted after the deadline.
   */
  leaseLive(): boolean {
    const deadline = this.deadlineMs;
    return !this.triggered && deadline !== null && this.opts.clock.now() < deadline;
  }

  /**
   * An accepted (fresh) heartbeat: re-arms the deadline, `leaseMs` from now (never past the timeout);
   * clears a triggered failsafe.
   */
  heartbeat(intervalSeconds: number, leaseMs = timeoutForInterval(intervalSeconds) * 1000): void {
    this.lastHeartbeatMs = this.opts.clock.now();
    this.heartbeatCount += 1;
    this.interval = intervalSeconds;
    this.leaseMs = Math.min(leaseMs, timeoutForInterval(intervalSeconds) * 1000);
    if (this.running) this.schedule();
    if (this.triggered) {
      this.triggered = false;
      this.opts.onRestored(this.snapshot());
    }
  }

  snapshot(): FailsafeSnapshot {
    return {
      running: this.running,
      lastHeartbeatMs: this.lastHeartbeatMs,
      heartbeatCount: this.heartbeatCount,
      triggered: this.triggered,
      timeoutSeconds: this.timeoutSeconds,
      heartbeatInterval: this.interval,
      timeoutSource: this.interval === null ? 'config' : 'genmaster',
    };
  }

  private schedule(): void {
    const deadline = this.deadlineMs;
    this.opts.clock.clearTimeout(this.timer);
    this.timer = null;
    if (deadline === null) return;
    this.timer = this.opts.clock.setTimeout(() => this.expire(), deadline - this.opts.clock.now());
  }

  private expire(): void {
    this.timer = null;
    const deadline = this.deadlineMs;
    if (!this.running || this.triggered || deadline === null) return;
    const now = this.opts.clock.now();
    // A timer may fire a hair early on some platforms; wait out the rest rather than trip early.
    if (now < deadline) {
      this.timer = this.opts.clock.setTimeout(() => this.expire(), deadline - now);
      return;
    }
    this.triggered = true;
    this.opts.onTriggered(this.snapshot());
  }
}
