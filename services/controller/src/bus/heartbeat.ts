import { randomBytes } from 'node:crypto';
import type { relaynode } from '@outpost/contracts';
import type { Clock } from '../domain/clock.js';
import type { DomainLogger, RelayPort } from '../domain/types.js';

/** Where desired states go (the relaynodeDesired topic); publish throws while disconnected. */
export interface DesiredSink {
  readonly connected: boolean;
  publish(payload: relaynode.DesiredState): Promise<void>;
}

export interface HeartbeatOptions {
  sink: DesiredSink;
  clock: Clock;
  logger: DomainLogger;
  intervalSeconds: number;
  /** The controller's current intent (settable later with setIntent). */
  intent?: () => { armed: boolean; relay_on: boolean };
}

/**
 * The relay lease: the controller's intent published every interval and at once on any change, with
 * a per-process epoch, an increasing seq and expires_at = issued_at + 3 x interval.
 */
export class HeartbeatPublisher implements RelayPort {
  readonly epoch = randomBytes(8).toString('hex');
  private seq = 0;
  private timer: unknown = null;
  private last: relaynode.DesiredState | null = null;

  private intent: () => { armed: boolean; relay_on: boolean };

  constructor(private readonly opts: HeartbeatOptions) {
    // Until the state machine is wired, the only safe intent is disarmed and OFF.
    this.intent = opts.intent ?? (() => ({ armed: false, relay_on: false }));
  }

  setIntent(fn: () => { armed: boolean; relay_on: boolean }): void {
    this.intent = fn;
  }

  start(): void {
    this.timer = this.opts.clock.setInterval(() => {
      this.beat().catch(() => undefined);
    }, this.opts.intervalSeconds * 1000);
  }

  stop(): void {
    if (this.timer !== null) this.opts.clock.clearInterval(this.timer);
    this.timer = null;
  }

  get lastSent(): relaynode.DesiredState | null {
    return this.last;
  }

  available(): boolean {
    return this.opts.sink.connected;
  }

  async commandRelay(_on: boolean): Promise<void> {
    await this.beat();
  }

  async setArmed(_armed: boolean): Promise<void> {
    await this.beat();
  }

  /** Publishes the current intent now; throws when the broker is unreachable. */
  async beat(): Promise<void> {
    const { sink, clock, intervalSeconds } = this.opts;
    const intent = this.intent();
    const issued = clock.now();
    const payload: relaynode.DesiredState = {
      epoch: this.epoch,
      seq: ++this.seq,
      issued_at: issued,
      expires_at: issued + 3 * intervalSeconds * 1000,
      heartbeat_interval: intervalSeconds,
      armed: intent.armed,
      relay_on: intent.relay_on,
    };
    if (!sink.connected) throw new Error('MQTT broker not connected; heartbeat not sent');
    await sink.publish(payload);
    this.last = payload;
  }
}
