import type { generator, HoaPosition, OverrideType } from '@outpost/contracts';
import { TimerSlot } from './clock.js';
import { GeneratorCore } from './controller-core.js';
import { DomainError } from './errors.js';
import { systemEvent } from './events.js';
import { bmsLowStops } from './gates.js';
import { cooldownRemainingSeconds } from './limits.js';
import type {
  Actor,
  EventDraft,
  FuelSettings,
  PersistedState,
  RuntimeLimitSettings,
  Settings,
} from './types.js';

const BMS: Actor = { who: 'bms', from: 'gpio' };
const HOA: Actor = { who: 'hoa', from: 'selector' };

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

/**
 * The generator state machine with its automation inputs: the input signal, the HOA selector, the
 * Quiet override, the force_run/force_stop overrides, arming, lockout and what the relay node reports.
 */
export class GeneratorController extends GeneratorCore {
  /** A manual stop while the signal is still HIGH waits for the signal to fall before auto-starting again. */
  private bmsLatched = false;
  private hoaStarted = false;
  private lastRefusal: string | null = null;
  private relayOnMismatch = false;
  /** What the relay node last reported its relay to be; null until it has reported. */
  private nodeRelayOn: boolean | null = null;
  private pendingBms: boolean | null = null;
  private readonly bmsDebounce = new TimerSlot(this.deps.clock, () => this.applyDebouncedBms());
  private readonly quietExpiry = new TimerSlot(this.deps.clock, () => this.fireQuietExpiry());
  private readonly cooldownEnd = new TimerSlot(this.deps.clock, () => this.fireReevaluate());

  override shutdown(): void {
    super.shutdown();
    this.bmsDebounce.cancel();
    this.quietExpiry.cancel();
    this.cooldownEnd.cancel();
  }

  protected override rearmTimers(): void {
    super.rearmTimers();
    const s = this.state;
    this.quietExpiry.at(s.quiet_override_active ? s.quiet_override_expires_at : null);
    this.cooldownEnd.at(cooldownRemainingSeconds(s, this.now) > 0 ? s.cooldown_until : null);
  }

  // ---- arming -----------------------------------------------------------------------------------

  arm(actor: Actor): Promise<PersistedState> {
    return this.serial.run(async () => {
      const next = {
        ...this.state,
        slave_relay_armed: true,
        automation_armed: true,
        manual_disarm_active: false,
      };
      await this.persistNow({ label: 'arm', state: next, audit: [{ action: 'generator.arm', actor }] });
      this.state = next;
      await this.safeRelay(() => this.deps.relay.setArmed(true));
      this.afterChange(false);
      await this.evaluate();
      return this.state;
    });
  }

  /** Always succeeds: disarming is a safety action and is queued while the database is down. */
  disarm(actor: Actor): Promise<PersistedState> {
    return this.serial.run(async () => {
      this.state = { ...this.state, slave_relay_armed: false, automation_armed: false };
      await this.safeRelay(() => this.deps.relay.setArmed(false));
      await this.persist({
        label: 'disarm',
        state: this.state,
        audit: [{ action: 'generator.disarm', actor }],
      });
      this.afterChange(false);
      return this.state;
    });
  }

  // ---- overrides --------------------------------------------------------------------------------

  enableOverride(type: OverrideType, actor: Actor): Promise<PersistedState> {
    return this.serial.run(async () => {
      if (this.state.override_type !== type) {
        const now = this.now;
        const next = { ...this.state, override_type: type, override_since: now };
        await this.persistNow({
          label: 'override:enable',
          state: next,
          events: () => [
            systemEvent('override_enabled', now, type, `${type} override enabled by ${actor.who}`, {
              override_type: type,
            }),
          ],
          audit: [{ action: 'override.enable', actor, details: { override_type: type } }],
        });
        this.state = next;
        this.afterChange(true);
        if (type === 'force_stop' && this.state.generator_running && !this.hoaHold) {
          await this.doStop('override', actor, 'force_stop override enabled');
        }
      }
      await this.evaluate();
      return this.state;
    });
  }

  disableOverride(actor: Actor): Promise<PersistedState> {
    return this.serial.run(async () => {
      const previous = this.state.override_type;
      if (previous !== null) {
        const now = this.now;
        const next = { ...this.state, override_type: null, override_since: null };
        await this.persistNow({
          label: 'override:disable',
          state: next,
          events: () => [
            systemEvent('override_disabled', now, 'none', `${previous} override disabled by ${actor.who}`, {
              override_type: previous,
            }),
          ],
          audit: [{ action: 'override.disable', actor, details: { override_type: previous } }],
        });
        this.state = next;
        this.afterChange(true);
      }
      await this.evaluate();
      return this.state;
    });
  }

  // ---- Quiet override ---------------------------------------------------------------------------

  enableQuietOverride(minutes: number, actor: Actor): Promise<PersistedState> {
    return this.serial.run(async () => {
      if (this.effectiveHoa() !== 'quiet') {
        throw new DomainError(
          'not_quiet',
          'Quiet override is only available while the HOA selector is in Quiet',
        );
      }
      const next = {
        ...this.state,
        quiet_override_active: true,
        quiet_override_expires_at: this.now + minutes * 60_000,
      };
      await this.persistNow({
        label: 'quiet:enable',
        state: next,
        audit: [{ action: 'quiet_override.enable', actor, details: { minutes } }],
      });
      this.state = next;
      this.afterChange(false);
      await this.evaluate();
      return this.state;
    });
  }

  cancelQuietOverride(actor: Actor): Promise<PersistedState> {
    return this.serial.run(async () => {
      await this.clearQuiet(actor, 'cancelled');
      await this.evaluate();
      return this.state;
    });
  }

  private async clearQuiet(actor: Actor, why: string): Promise<void> {
    if (!this.state.quiet_override_active) return;
    this.state = { ...this.state, quiet_override_active: false, quiet_override_expires_at: null };
    await this.persist({
      label: 'quiet:clear',
      state: this.state,
      audit: [{ action: 'quiet_override.clear', actor, details: { why } }],
    });
    this.afterChange(false);
  }

  /**
   * Called once the boot read of the selector is in. A Quiet override kept from before a restart lifts
   * the Quiet gate only while the selector is at Quiet; if the selector left Quiet while the controller
   * was down, the override must not live on until its timer ends.
   */
  reconcileQuietOverride(): Promise<void> {
    return this.serial.run(async () => {
      const position = this.effectiveHoa();
      if (!this.state.quiet_override_active || position === 'quiet') return;
      const now = this.now;
      this.state = { ...this.state, quiet_override_active: false, quiet_override_expires_at: null };
      await this.persist({
        label: 'quiet:boot',
        state: this.state,
        events: () => [
          systemEvent(
            'quiet_override_cleared',
            now,
            'cleared',
            `Quiet override cleared at start: the HOA selector is at ${position}, not Quiet`,
            { position },
          ),
        ],
        audit: [
          { action: 'quiet_override.clear', actor: HOA, details: { why: 'selector not at Quiet at start' } },
        ],
      });
      this.afterChange(true);
      await this.evaluate();
    });
  }

  private fireQuietExpiry(): void {
    void this.serial
      .run(async () => {
        const at = this.state.quiet_override_expires_at;
        if (!this.state.quiet_override_active || at === null) return;
        if (at > this.now) return this.rearmTimers();
        await this.clearQuiet({ who: 'system', from: 'timer' }, 'expired');
        await this.evaluate();
      })
      .catch((err) => this.deps.logger.error({ err }, 'quiet override expiry failed'));
  }

  // ---- lockout, settings, fuel ------------------------------------------------------------------

  clearLockout(actor: Actor): Promise<{ cleared: boolean }> {
    return this.serial.run(async () => {
      if (!this.state.lockout_active) return { cleared: false };
      const now = this.now;
      const next = { ...this.state, lockout_active: false };
      await this.persistNow({
        label: 'lockout:clear',
        state: next,
        events: () => [
          systemEvent('lockout_cleared', now, 'cleared', `lockout acknowledged by ${actor.who}`),
        ],
        audit: [{ action: 'lockout.clear', actor }],
      });
      this.state = next;
      this.afterChange(true);
      await this.evaluate();
      return { cleared: true };
    });
  }

  updateSettings(
    patch: Partial<Omit<Settings, 'limits' | 'fuel'>> & {
      limits?: Partial<RuntimeLimitSettings>;
      fuel?: Partial<FuelSettings>;
    },
    actor: Actor,
  ): Promise<Settings> {
    return this.serial.run(async () => {
      const next: Settings = {
        ...this.settings,
        ...patch,
        limits: { ...this.settings.limits, ...patch.limits },
        fuel: { ...this.settings.fuel, ...patch.fuel },
      };
      await this.persistNow({
        label: 'settings',
        settings: next,
        audit: [{ action: 'settings.update', actor, details: patch }],
      });
      this.settings = next;
      this.afterChange(false);
      await this.evaluate();
      return this.settings;
    });
  }

  resetFuel(actor: Actor): Promise<number> {
    return this.serial.run(async () => {
      const next = { ...this.state, fuel_reset_at: this.now };
      await this.persistNow({
        label: 'fuel:reset',
        state: next,
        audit: [{ action: 'fuel_usage.reset', actor }],
      });
      this.state = next;
      return this.now;
    });
  }

  // ---- input signal -----------------------------------------------------------------------------

  /** A raw reading of the input signal; the debounce setting (ms, default 0) must see it stable. */
  setBmsSignal(active: boolean): Promise<void> {
    const debounce = this.settings.bms_debounce_ms;
    if (debounce <= 0) {
      this.bmsDebounce.cancel();
      this.pendingBms = null;
      return this.serial.run(() => this.applyBms(active));
    }
    if (active === this.bmsActive) {
      this.bmsDebounce.cancel();
      this.pendingBms = null;
      return Promise.resolve();
    }
    if (this.pendingBms !== active) {
      this.pendingBms = active;
      this.bmsDebounce.at(this.now + debounce);
    }
    return Promise.resolve();
  }

  private applyDebouncedBms(): void {
    const value = this.pendingBms;
    this.pendingBms = null;
    if (value === null) return;
    void this.serial
      .run(() => this.applyBms(value))
      .catch((err) => this.deps.logger.error({ err }, 'input signal handling failed'));
  }

  private async applyBms(active: boolean): Promise<void> {
    if (active === this.bmsActive) return;
    this.bmsActive = active;
    if (!active) this.bmsLatched = false;
    this.deps.logger.info({ active }, 'input signal changed');
    this.deps.bus.stateChanged();
    await this.evaluate();
  }

  // ---- HOA selector -----------------------------------------------------------------------------

  setHoaPosition(position: HoaPosition): Promise<void> {
    return this.serial.run(async () => {
      const previous = this.hoa;
      if (previous === position) return;
      const prevEffective = this.effectiveHoa();
      this.hoa = position;
      const now = this.now;
      const inBootDelay = now - this.bootAt < this.deps.config.hoaBootDelaySeconds * 1000;
      const quietOrRun = position === 'quiet' || position === 'run';
      const events: EventDraft[] =
        inBootDelay && quietOrRun
          ? []
          : (['hoa_position_changed', 'generator.hoa_position_changed'] as const).map((name) =>
              // The second name is the webhook's: webhooks receive generator.* events.
              systemEvent(name, now, position, `HOA selector moved from ${previous} to ${position}`, {
                position,
                previous,
              }),
            );
      await this.persist({
        label: 'hoa',
        events: () => events,
        audit: [{ action: 'hoa.position', actor: HOA, details: { position, previous } }],
      });
      if (prevEffective === 'quiet' && this.effectiveHoa() !== 'quiet')
        await this.clearQuiet(HOA, 'selector left Quiet');
      if (prevEffective === 'run' && this.effectiveHoa() !== 'run') {
        this.hoaHold = false;
        if (this.hoaStarted && this.state.generator_running) {
          this.hoaStarted = false;
          await this.doStop('manual', HOA, 'HOA selector left Run');
        }
        this.hoaStarted = false;
      }
      this.afterChange(events.length > 0);
      await this.evaluate();
    });
  }

  // ---- relay node reports -----------------------------------------------------------------------

  relayReported(report: RelayReport): Promise<void> {
    return this.serial.run(async () => {
      const s = this.state;
      const now = this.now;
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
          this.deps.logger.warn(
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
        if (relayChanged) this.afterChange(false);
        return;
      }
      this.state = next;
      await this.persist({
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
      this.afterChange(events.length > 0);
      if (report.failsafe_triggered && this.state.generator_running) {
        await this.stopForLostLease(report);
      } else if (epoChanged && epo && this.state.generator_running) {
        this.hoaStarted = false;
        await this.doStop('error', { who: 'relaynode', from: 'epo' }, 'hardware safety (EPO) engaged');
      }
      await this.evaluate();
    });
  }

  private async stopForLostLease(report: RelayReport): Promise<void> {
    if (report.lease_undelivered) {
      await this.doStop(
        'comm_loss',
        { who: 'system', from: 'lease' },
        'relay ON not delivered to the relay node within the lease (MQTT broker unreachable)',
      );
    } else {
      await this.doStop(
        'comm_loss',
        { who: 'relaynode', from: 'failsafe' },
        'relay node failsafe: heartbeat lost',
      );
    }
  }

  private lastView: Readonly<generator.GeneratorState & { slave_relay_on: boolean | null }> | null = null;
  private lastViewAt = {
    state: this.state,
    phase: this.phase,
    hoa: this.hoa,
    bms: false,
    relay: null as boolean | null,
    now: -1,
  };

  /**
   * The state as clients see it. The same object while nothing it derives from has changed
   * (state, phase, inputs, the clock's millisecond), so a busy read path neither rebuilds nor
   * re-serialises it. Frozen: callers share it.
   */
  override view() {
    const now = this.now;
    const at = this.lastViewAt;
    if (
      this.lastView &&
      at.now === now &&
      at.state === this.state &&
      at.phase === this.phase &&
      at.hoa === this.hoa &&
      at.bms === this.bmsActive &&
      at.relay === this.nodeRelayOn
    ) {
      return this.lastView;
    }
    this.lastViewAt = {
      state: this.state,
      phase: this.phase,
      hoa: this.hoa,
      bms: this.bmsActive,
      relay: this.nodeRelayOn,
      now,
    };
    this.lastView = Object.freeze({ ...super.view(), slave_relay_on: this.nodeRelayOn });
    return this.lastView;
  }

  // ---- the state-machine tick -------------------------------------------------------------------

  private fireReevaluate(): void {
    void this.serial
      .run(() => this.evaluate())
      .catch((err) => this.deps.logger.error({ err }, 'evaluation failed'));
  }

  protected override async doStop(
    ...args: Parameters<GeneratorCore['doStop']>
  ): ReturnType<GeneratorCore['doStop']> {
    const [reason, actor] = args;
    const outcome = await super.doStop(...args);
    if (outcome.was_running && reason === 'manual' && actor.who !== 'hoa' && this.bmsActive)
      this.bmsLatched = true;
    if (outcome.was_running) this.hoaStarted = false;
    return outcome;
  }

  /** Decides what the inputs ask for now, in the spec's precedence. */
  protected override async evaluate(): Promise<void> {
    const s = this.state;
    if (this.effectiveHoa() === 'run') {
      if (s.generator_running) {
        if (!this.hoaHold) {
          this.hoaHold = true;
          this.rearmTimers();
        }
        return;
      }
      if (this.checkStart('manual', true)) return;
      await this.doStart({ trigger: 'manual', actor: HOA, hoaRun: true, notes: 'HOA selector at Run' });
      this.hoaStarted = true;
      return;
    }
    if (s.generator_running) {
      if (!this.bmsActive && bmsLowStops(s, this.hoaHold)) await this.doStop('bms', BMS, null);
      return;
    }
    if (!this.bmsActive || this.bmsLatched) {
      this.lastRefusal = null;
      return;
    }
    const refusal = this.checkStart('bms');
    if (refusal) {
      if (refusal.code !== this.lastRefusal) {
        this.deps.logger.info({ code: refusal.code }, `input signal start refused: ${refusal.message}`);
        await this.persist({
          label: 'bms:refused',
          audit: [{ action: 'generator.start_refused', actor: BMS, details: { ...refusal } }],
        });
      }
      this.lastRefusal = refusal.code;
      return;
    }
    this.lastRefusal = null;
    try {
      await this.doStart({ trigger: 'bms', actor: BMS });
    } catch (err) {
      this.deps.logger.warn({ err }, 'input signal start failed');
    }
  }
}
