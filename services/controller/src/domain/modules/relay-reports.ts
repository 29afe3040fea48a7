import { TimerSlot } from '../clock.js';
import type { ControllerModule, ModuleHost } from '../controller-module.js';
import { systemEvent } from '../events.js';
import { raiseAlarm } from '../health-events.js';
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
  /** With failsafe_triggered: the node never confirmed the run's relay ON within its lease; why. */
  lease_unconfirmed?: string;
  /** The node reported the relay ON under a lease of the current run. */
  relay_confirmed?: boolean;
  /** While a run's ON is unconfirmed: why (the node's refusal, EPO, not connected, …). */
  unconfirmed_reason?: string | null;
  /** The relay node's clock minus the controller's, ms; null until measured. */
  clock_offset_ms?: number | null;
}

const RELAY_LINK = { who: 'system', from: 'relay-link' };

/** What the clients see of the safety link besides the persisted state. */
export interface RelayLinkView {
  relay_confirmed_at: number | null;
  relay_unconfirmed_reason: string | null;
  relaynode_clock_offset_seconds: number | null;
}

/**
 * What the relay node reports: its link, its EPO, its relay, a failsafe that dropped a run, and
 * whether it confirmed a run's relay ON. A run it has not confirmed within `relayConfirmMs` raises
 * `relay_not_confirmed` with the node's reason; the lease then ends the run (comm_loss) unless the
 * node confirms in time.
 */
export class RelayReports implements ControllerModule {
  /**
   * Every restart sees the relay node connect again. People hear about that first connect only when
   * they were told before the restart that the node was lost; otherwise nothing changed for them.
   */
  private quietFirstConnect = false;
  private relayOnMismatch = false;
  /** What the relay node last reported its relay to be; null until it has reported. */
  private nodeRelayOn: boolean | null = null;
  private confirmedAt: number | null = null;
  private unconfirmedReason: string | null = null;
  private offsetMs: number | null = null;
  private readonly confirmDeadline: TimerSlot;
  private waiters: Array<(confirmed: boolean) => void> = [];
  /** The clients' view object, rebuilt only when one of its values changes. */
  private linkView: RelayLinkView = {
    relay_confirmed_at: null,
    relay_unconfirmed_reason: null,
    relaynode_clock_offset_seconds: null,
  };

  constructor(private readonly core: ModuleHost) {
    this.confirmDeadline = new TimerSlot(core.clock, () => this.confirmOverdue());
  }

  start(): void {
    this.core.events.on('bootRead', (previous) => {
      this.quietFirstConnect = previous.slave_connection_status !== 'disconnected';
    });
    this.core.events.on('runStarted', () => {
      this.confirmedAt = null;
      const ms = this.core.deps.config.relayConfirmMs;
      if (ms !== undefined) this.confirmDeadline.at(this.core.now + ms);
      this.refreshView();
    });
    this.core.events.on('runClosed', () => {
      this.confirmDeadline.cancel();
      this.settle(false);
      this.confirmedAt = null;
      // The reason stays with a standing alarm: the console and the state still say why.
      if (this.core.state.health_alarm !== 'relay_not_confirmed') this.unconfirmedReason = null;
      this.refreshView();
    });
  }

  stop(): void {
    this.confirmDeadline.cancel();
    this.settle(false);
  }

  get view(): RelayLinkView {
    return this.linkView;
  }

  /**
   * Resolves true once the relay node confirms the current run's relay ON, false after `ms` or a stop.
   * Real time, not the domain clock: it only bounds how long an HTTP answer waits, and decides nothing.
   */
  waitConfirmed(ms: number): Promise<boolean> {
    if (this.confirmedAt !== null) return Promise.resolve(true);
    if (!this.core.state.generator_running || ms <= 0) return Promise.resolve(false);
    return new Promise((resolve) => {
      const timer = setTimeout(() => done(false), ms);
      const done = (confirmed: boolean) => {
        clearTimeout(timer);
        this.waiters = this.waiters.filter((w) => w !== done);
        resolve(confirmed);
      };
      this.waiters.push(done);
    });
  }

  private settle(confirmed: boolean): void {
    for (const w of [...this.waiters]) w(confirmed);
  }

  private refreshView(): void {
    const offset = this.offsetMs === null ? null : Math.round(this.offsetMs / 100) / 10;
    const v = this.linkView;
    const confirmedAt = this.confirmedAt === null ? null : Math.floor(this.confirmedAt / 1000);
    const pending = this.core.state.generator_running && this.confirmedAt === null;
    const standing = this.core.state.health_alarm === 'relay_not_confirmed';
    const reason = pending || standing ? this.unconfirmedReason : null;
    if (
      v.relay_confirmed_at === confirmedAt &&
      v.relay_unconfirmed_reason === reason &&
      v.relaynode_clock_offset_seconds === offset
    )
      return;
    this.linkView = {
      relay_confirmed_at: confirmedAt,
      relay_unconfirmed_reason: reason,
      relaynode_clock_offset_seconds: offset,
    };
    this.core.afterChange(false);
  }

  /** Records what the node says of the run's relay ON; inside a serial section. */
  private async noteConfirmation(report: RelayReport): Promise<void> {
    const core = this.core;
    if (report.clock_offset_ms !== undefined) this.offsetMs = report.clock_offset_ms;
    if (report.unconfirmed_reason !== undefined && report.unconfirmed_reason !== null)
      this.unconfirmedReason = report.unconfirmed_reason;
    if (report.relay_confirmed && core.state.generator_running && this.confirmedAt === null) {
      this.confirmedAt = core.now;
      this.unconfirmedReason = null;
      this.confirmDeadline.cancel();
      this.settle(true);
      if (core.state.health_alarm === 'relay_not_confirmed') {
        const next = { ...core.state, health_alarm: null };
        core.state = next;
        await core.persist({
          label: 'alarm:relay_confirmed',
          state: next,
          events: () => [],
          audit: [{ action: 'alarm.relay_not_confirmed.cleared', actor: RELAY_LINK, details: {} }],
        });
        core.afterChange(true);
      }
    }
    this.refreshView();
  }

  private confirmOverdue(): void {
    const core = this.core;
    void core.serial
      .run(async () => {
        if (!core.state.generator_running || this.confirmedAt !== null) return;
        const reason = this.unconfirmedReason ?? 'the relay node has not reported the relay ON';
        await raiseAlarm(core, {
          alarm: 'relay_not_confirmed',
          details: reason,
          extra: { run_id: core.state.current_run_id, reason },
          lockout: false,
          actor: RELAY_LINK,
        });
      })
      .catch((err) => core.deps.logger.error({ err }, 'relay confirmation alarm'));
  }

  get relayOn(): boolean | null {
    return this.nodeRelayOn;
  }

  reported(report: RelayReport): Promise<void> {
    const core = this.core;
    return core.serial.run(async () => {
      await this.noteConfirmation(report);
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
    if (report.lease_unconfirmed) {
      // With a short interval the lease ends before the alarm's deadline: raise it now.
      if (this.confirmedAt === null && core.state.health_alarm !== 'relay_not_confirmed') {
        this.confirmDeadline.cancel();
        await raiseAlarm(core, {
          alarm: 'relay_not_confirmed',
          details: report.lease_unconfirmed,
          extra: { run_id: core.state.current_run_id, reason: report.lease_unconfirmed },
          lockout: false,
          actor: RELAY_LINK,
        });
      }
      await core.doStop(
        'comm_loss',
        { who: 'system', from: 'lease' },
        `relay ON not confirmed by the relay node within the lease: ${report.lease_unconfirmed}`,
      );
    } else if (report.lease_undelivered) {
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
