import { flagGauge, type OutpostApp } from '@outpost/runtime';
import { Counter, Gauge } from 'prom-client';
import type { RelayNode } from '../domain/relay-node.js';

/** Safety state as Prometheus gauges, read at scrape time so they can never go stale. */
export function registerNodeMetrics(app: OutpostApp, node: RelayNode): void {
  const registers = [app.metrics.registry];
  const flag = (name: string, help: string, read: () => boolean) =>
    flagGauge(app.metrics.registry, name, help, read);
  flag('relaynode_relay_on', 'Relay energised (generator start input closed)', () => node.isRelayOn);
  flag('relaynode_armed', 'Relay node armed', () => node.isArmed);
  flag(
    'relaynode_failsafe_triggered',
    'No heartbeat within the timeout',
    () => node.failsafeStatus().failsafe_triggered,
  );
  flag('relaynode_epo_engaged', 'Emergency power off engaged', () => node.isEpoEngaged);
  // A running count is a counter, so rate() and increase() work across restarts.
  new Counter({
    name: 'relaynode_heartbeats_total',
    help: 'Heartbeats accepted since start',
    registers,
    collect() {
      const total = node.failsafeStatus().heartbeat_count;
      this.reset();
      this.inc(total);
    },
  });
  // A timestamp, not an age: an age is stale the moment it is scraped, and time() - it gives the age.
  new Gauge({
    name: 'relaynode_last_heartbeat_timestamp_seconds',
    help: 'Unix time of the last accepted heartbeat (0 before the first)',
    registers,
    collect() {
      this.set(node.failsafeStatus().last_heartbeat ?? 0);
    },
  });
}
