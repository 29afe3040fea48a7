import type { OutpostApp } from '@outpost/runtime';
import { Gauge } from 'prom-client';
import type { RelayNode } from '../domain/relay-node.js';

/** Safety state as Prometheus gauges, read at scrape time so they can never go stale. */
export function registerNodeMetrics(app: OutpostApp, node: RelayNode): void {
  const registers = [app.metrics.registry];
  const flag = (name: string, help: string, read: () => boolean) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        this.set(read() ? 1 : 0);
      },
    });
  flag('relaynode_relay_on', 'Relay energised (generator start input closed)', () => node.isRelayOn);
  flag('relaynode_armed', 'Relay node armed', () => node.isArmed);
  flag(
    'relaynode_failsafe_triggered',
    'No heartbeat within the timeout',
    () => node.failsafeStatus().failsafe_triggered,
  );
  flag('relaynode_epo_engaged', 'Emergency power off engaged', () => node.isEpoEngaged);
  new Gauge({
    name: 'relaynode_heartbeats',
    help: 'Heartbeats accepted since start',
    registers,
    collect() {
      this.set(node.failsafeStatus().heartbeat_count);
    },
  });
  new Gauge({
    name: 'relaynode_seconds_since_heartbeat',
    help: 'Seconds since the last accepted heartbeat (-1 before the first)',
    registers,
    collect() {
      this.set(node.failsafeStatus().seconds_since_heartbeat ?? -1);
    },
  });
}
