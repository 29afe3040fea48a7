import { health } from '@outpost/contracts';
import { flagGauge } from '@outpost/runtime';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { DesiredSink, HeartbeatPublisher } from '../domain/heartbeat-lease.js';
import { registerConditionMetrics } from './condition-metrics.js';
import { registerGensetMetrics } from './genset-metrics.js';
import type { ControllerService } from '../controller-service.js';

/**
 * The controller's domain metrics. Created before the HTTP app exists (the relay command counter
 * wraps the heartbeat sink), registered into the app's registry once it does. Gauges read the
 * state machine at scrape time so they can never go stale.
 */
export function createControllerMetrics() {
  const relayCommands = new Counter({
    name: 'controller_relay_commands_total',
    help: 'Desired-state (relay lease) publishes to the relay node, by result',
    labelNames: ['result'] as const,
    registers: [],
  });
  relayCommands.inc({ result: 'delivered' }, 0);
  relayCommands.inc({ result: 'failed' }, 0);

  return {
    relayCommands,
    /** Counts every desired-state publish the heartbeat makes. */
    countingSink(sink: DesiredSink): DesiredSink {
      return {
        get connected() {
          return sink.connected;
        },
        async publish(payload) {
          try {
            await sink.publish(payload);
            relayCommands.inc({ result: 'delivered' });
          } catch (err) {
            relayCommands.inc({ result: 'failed' });
            throw err;
          }
        },
      };
    },
    register(registry: Registry, svc: ControllerService, heartbeat: HeartbeatPublisher): void {
      registry.registerMetric(relayCommands);
      registerConditionMetrics(registry, svc);
      registerGensetMetrics(registry, svc);
      const registers = [registry];
      const view = () => svc.controller.view();
      const flag = (name: string, help: string, read: () => boolean | undefined) =>
        flagGauge(registry, name, help, read);
      flag('controller_generator_running', 'Generator running (1) or not (0)', () => view().running);
      flag('controller_armed', 'Relay armed', () => view().armed);
      flag('controller_relaynode_connected', 'Relay node connected', () => view().slave_connected);
      flag('controller_failsafe_triggered', 'Relay node failsafe triggered', () => view().failsafe_triggered);
      flag('controller_lockout_active', 'Locked out after the maximum runtime', () => view().lockout_active);
      flag(
        'controller_epo_engaged',
        'Emergency power off engaged on the relay node',
        () => view().slave_physical_safety_engaged,
      );
      // A gauge, not a counter: the meter is set to match the generator's own and may go down then.
      // In seconds, Prometheus's base unit; the hours are in the HA stats and the API.
      new Gauge({
        name: 'controller_engine_run_seconds',
        help: 'Engine-hour meter in seconds (running feedback, or relay-ON time without it)',
        registers,
        collect() {
          this.set(Math.round(svc.controller.engineHours * 3_600_000) / 1000);
        },
      });
      flag(
        'controller_running_feedback',
        'Running feedback says the generator runs',
        () => view().running_feedback ?? false,
      );
      new Gauge({
        name: 'controller_health_alarm',
        help: 'The standing generator health alarm (1 for the alarm in force, 0 for the others)',
        labelNames: ['alarm'] as const,
        registers,
        collect() {
          const standing = view().health_alarm ?? null;
          for (const alarm of health.HEALTH_ALARMS) this.set({ alarm }, standing === alarm ? 1 : 0);
        },
      });
      // A timestamp, not an age: time() - it gives the age at query time, never a stale one.
      new Gauge({
        name: 'controller_relaynode_clock_offset_seconds',
        help: "The relay node's clock minus the controller's, measured over the bus (absent until measured)",
        registers,
        collect() {
          this.reset();
          const offset = heartbeat.clockOffset;
          if (offset) this.set(offset.offset_ms / 1000);
        },
      });
      new Gauge({
        name: 'controller_heartbeat_last_sent_timestamp_seconds',
        help: 'Unix time of the last heartbeat delivered to the broker (0 before the first)',
        registers,
        collect() {
          const last = heartbeat.lastSent;
          this.set(last ? last.issued_at / 1000 : 0);
        },
      });
      new Counter({
        name: 'controller_generator_run_seconds_total',
        help: 'Generator run time over all recorded runs, the current run included',
        registers,
        collect() {
          // The controller's meters, the figure HA's total_run_hours shows: no database read, so a
          // scrape never sees a run neither going nor recorded.
          this.reset();
          this.inc(svc.controller.meters().run_seconds);
        },
      });
    },
  };
}
