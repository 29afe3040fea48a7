import type { ControllerModule, ModuleHost } from '../controller-module.js';
import { systemEvent } from '../events.js';
import type { EventDraft, PersistedState } from '../types.js';

export interface RelayReport {
  connected?: boolean;
  physical_safety_engaged?: boolean;
  relay_on?: boolean;
  missed_heartbeat_count?: number;
  /** The relay node dropped the relay because heartbeats stopped. */
  failsafe_triggered?: boolean;
  /** With failsafe_triggered: the run's relay ON never reached the relay node within its lease. */
  lease_undelivered?: boolean;
}

/** What the relay node reports: its link, its EPO, its relay, and a failsafe that dropped a run. */
export class RelayReports implements ControllerModule {
  /**
   * Every restart sees the relay node connect again. People hear about that first connect only when
   * they were told before the restart that the node was lost; otherwise nothing changed for them.
   */
  private quietFirstConnect = false;
  private relayOnMismatch = false;
  /** What the relay node last reported its relay to be; null until it has reported. */
  private nodeRelayOn: boolean | null = null;

  constructor(private readonly core: ModuleHost) {}

  start(): void {
    this.core.events.on('bootRead', (previous) => {
      this.quietFirstConnect = previous.slave_connection_status !== 'disconnected';
    });
  }

  get relayOn(): boolean | null {
    return this.nodeRelayOn;
  }

  reported(report: RelayReport): Promise<void> {
    const core = this.core;
    return core.serial.run(async () => {
      const s = core.state;
      const now = core.now;
      const events: EventDraft[] = [];
      const next: PersistedState = { ...s };
      if (report.connected !== undefined) {
        const status = report.connected ? 'connected' : 'disconnected';
        if (status !== s.slave_connection_status) {
          next.slave_connection_status = status;
          const quiet = this.quietFirstConnect;
          this.quietFirstConnect = false;
          if (status === 'connected' && !quiet)
            events.push(systemEvent('slave_connected', now, 'connected', 'relay node connected'));
          else if (status === 'disconnected' && s.slave_connection_status === 'connected') {
            events.push(systemEvent('slave_disconnected', now, 'disconnected', 'relay node heartbeat lost'));
          }
        }
      }
      if (report.missed_heartbeat_count !== undefined)
        next.missed_heartbeat_count = report.missed_heartbeat_count;
      const epo = report.physical_safety_engaged;
      const epoChanged = epo !== undefined && epo !== s.slave_physical_safety_engaged;
      if (epoChanged) {
        next.slave_physical_safety_engaged = epo;
        events.push(
          epo
            ? systemEvent(
                'hardware_safety_engaged_relaynode',
                now,
                'engaged',
                'EPO engaged at the relay node',
              )
            : systemEvent(
                'hardware_safety_released_relaynode',
                now,
                'released',
                'EPO released at the relay node',
              ),
        );
      }
      const relayChanged = report.relay_on !== undefined && report.relay_on !== this.nodeRelayOn;
      if (report.relay_on !== undefined) {
        this.nodeRelayOn = report.relay_on;
        const mismatch = report.relay_on && !s.generator_running;
        if (mismatch && !this.relayOnMismatch) {
          core.deps.logger.warn(
            { event: 'RECONCILIATION_MISMATCH' },
            'RECONCILIATION_MISMATCH: relay node relay is ON but no run is active',
          );
        }
        this.relayOnMismatch = mismatch;
      }
      const changed =
        events.length > 0 ||
        next.slave_connection_status !== s.slave_connection_status ||
        next.missed_heartbeat_count !== s.missed_heartbeat_count;
      if (report.failsafe_triggered && s.generator_running && !changed) {
        await this.stopForLostLease(report);
        return;
      }
      if (!changed) {
        // Not persisted (the node's retained state is the record), but clients see it at once.
        if (relayChanged) core.afterChange(false);
        return;
      }
      core.state = next;
      await core.persist({
        label: 'relay:report',
        state: next,
        events: () => events,
        audit: events.length
          ? [
              {
                action: 'relaynode.report',
                actor: { who: 'relaynode', from: 'heartbeat' },
                details: { ...report },
              },
            ]
          : [],
      });
      core.afterChange(events.length > 0);
      if (report.failsafe_triggered && core.state.generator_running) {
        await this.stopForLostLease(report);
      } else if (epoChanged && epo && core.state.generator_running) {
        // The HOA selector forgets the run it started through the core's runStopped event.
        await core.doStop('error', { who: 'relaynode', from: 'epo' }, 'hardware safety (EPO) engaged');
      }
      await core.evaluate();
    });
  }

  private async stopForLostLease(report: RelayReport): Promise<void> {
    const core = this.core;
    if (report.lease_undelivered) {
      await core.doStop(
        'comm_loss',
        { who: 'system', from: 'lease' },
        'relay ON not delivered to the relay node within the lease (MQTT broker unreachable)',
      );
    } else {
      await core.doStop(
        'comm_loss',
        { who: 'relaynode', from: 'failsafe' },
        'relay node failsafe: heartbeat lost',
      );
    }
  }
}
