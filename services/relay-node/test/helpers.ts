import { ManualClock } from '@outpost/runtime/clock';
import { Alerts, type AlertMessage, type AlertStore } from '../src/domain/alerts.js';
import type { DesiredMessage } from '../src/domain/lease.js';
import { leaseVerifier } from '../src/domain/lease-verifier.js';
import { type LogSink, RelayNode } from '../src/domain/relay-node.js';
import { FixedChallenges, sign, TEST_LEASE_KEYS } from './lease-fields.js';

export const silentLog: LogSink = { info() {}, warn() {}, error() {} };

/** A relay that records every write, as the hardware would see them. */
export class RecordingRelay {
  writes: boolean[] = [];
  failNext = false;
  get on(): boolean {
    return this.writes.at(-1) ?? false;
  }
  set(on: boolean): void {
    if (this.failNext) {
      this.failNext = false;
      throw new Error('GPIO write failed');
    }
    this.writes.push(on);
  }
}

export class MemoryAlertStore implements AlertStore {
  sent = new Map<string, number>();
  minutes = { failsafe_triggered: 5, heartbeat_restored: 5 };
  cooldownMinutes(event: 'failsafe_triggered' | 'heartbeat_restored'): number {
    return this.minutes[event];
  }
  lastSent(event: string): number | null {
    return this.sent.get(event) ?? null;
  }
  markSent(event: string, atMs: number): void {
    this.sent.set(event, atMs);
  }
}

export function makeNode(opts: { timeout?: number; realChallenges?: boolean; wall?: () => number } = {}) {
  const clock = new ManualClock(Date.UTC(2026, 5, 1, 12, 0, 0));
  const relay = new RecordingRelay();
  const delivered: AlertMessage[] = [];
  const store = new MemoryAlertStore();
  const alerts = new Alerts(
    store,
    async (m) => {
      delivered.push(m);
    },
    () => clock.now(),
  );
  const node = new RelayNode({
    clock,
    relay,
    defaultTimeoutSeconds: opts.timeout ?? 30,
    log: silentLog,
    alerts,
    nodeId: 'main',
    wallNow: () => clock.now() + (opts.wall?.() ?? 0),
    verifyLease: leaseVerifier('main', TEST_LEASE_KEYS.publicKey),
    ...(opts.realChallenges ? {} : { challenges: new FixedChallenges() }),
  });
  node.start();
  let seq = 0;
  const epoch = '7';
  /** A signed desired-state message issued now by a controller with a 10 s interval. */
  const desired = (
    over: Partial<{
      armed: boolean;
      relay_on: boolean;
      seq: number;
      epoch: string;
      issued_at: number;
      ttl: number;
      challenge: string | null;
      unsigned: boolean;
    }> = {},
  ): DesiredMessage => {
    const issued = over.issued_at ?? clock.now();
    seq = over.seq ?? seq + 1;
    const fields = {
      heartbeat_interval: 10,
      armed: over.armed ?? true,
      relay_on: over.relay_on ?? true,
      epoch: over.epoch ?? epoch,
      seq,
      issued_at: issued,
      expires_at: issued + (over.ttl ?? 30_000),
      challenge: over.challenge === undefined ? node.challenge() : over.challenge,
    };
    const { heartbeat_interval, armed, relay_on, ...stamp } = sign('main', fields);
    const lease = over.unsigned ? { ...stamp, sig: 'A'.repeat(86) } : stamp;
    return { heartbeat_interval, armed, relay_on, lease };
  };
  return { clock, relay, node, delivered, store, desired };
}
