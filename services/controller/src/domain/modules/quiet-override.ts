import { TimerSlot } from '../clock.js';
import type { ControllerModule, ModuleHost } from '../controller-module.js';
import { DomainError } from '../errors.js';
import { systemEvent } from '../events.js';
import type { Actor, PersistedState } from '../types.js';
import { HOA } from './actors.js';

/** What the HOA selector needs from the Quiet override: it ends when the selector leaves Quiet. */
export interface QuietClearing {
  clear(actor: Actor, why: string): Promise<void>;
}

/** The timed override that lifts the HOA Quiet gate while the selector is at Quiet. */
export class QuietOverride implements ControllerModule, QuietClearing {
  private readonly expiry: TimerSlot;

  constructor(private readonly core: ModuleHost) {
    this.expiry = new TimerSlot(core.clock, () => this.fireExpiry());
  }

  start(): void {
    this.core.events.on('rearm', () => {
      const s = this.core.state;
      this.expiry.at(s.quiet_override_active ? s.quiet_override_expires_at : null);
    });
  }

  stop(): void {
    this.expiry.cancel();
  }

  enable(minutes: number, actor: Actor): Promise<PersistedState> {
    const core = this.core;
    return core.serial.run(async () => {
      if (core.effectiveHoa() !== 'quiet') {
        throw new DomainError(
          'not_quiet',
          'Quiet override is only available while the HOA selector is in Quiet',
        );
      }
      const next = {
        ...core.state,
        quiet_override_active: true,
        quiet_override_expires_at: core.now + minutes * 60_000,
      };
      await core.persistNow({
        label: 'quiet:enable',
        state: next,
        audit: [{ action: 'quiet_override.enable', actor, details: { minutes } }],
      });
      core.state = next;
      core.afterChange(false);
      await core.evaluate();
      return core.state;
    });
  }

  cancel(actor: Actor): Promise<PersistedState> {
    const core = this.core;
    return core.serial.run(async () => {
      await this.clear(actor, 'cancelled');
      await core.evaluate();
      return core.state;
    });
  }

  /** Inside a serial section the caller holds. */
  async clear(actor: Actor, why: string): Promise<void> {
    const core = this.core;
    if (!core.state.quiet_override_active) return;
    core.state = { ...core.state, quiet_override_active: false, quiet_override_expires_at: null };
    await core.persist({
      label: 'quiet:clear',
      state: core.state,
      audit: [{ action: 'quiet_override.clear', actor, details: { why } }],
    });
    core.afterChange(false);
  }

  /**
   * Called once the boot read of the selector is in. A Quiet override kept from before a restart lifts
   * the Quiet gate only while the selector is at Quiet; if the selector left Quiet while the controller
   * was down, the override must not live on until its timer ends.
   */
  reconcile(): Promise<void> {
    const core = this.core;
    return core.serial.run(async () => {
      const position = core.effectiveHoa();
      if (!core.state.quiet_override_active || position === 'quiet') return;
      const now = core.now;
      core.state = { ...core.state, quiet_override_active: false, quiet_override_expires_at: null };
      await core.persist({
        label: 'quiet:boot',
        state: core.state,
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
      core.afterChange(true);
      await core.evaluate();
    });
  }

  private fireExpiry(): void {
    const core = this.core;
    void core.serial
      .run(async () => {
        const at = core.state.quiet_override_expires_at;
        if (!core.state.quiet_override_active || at === null) return;
        if (at > core.now) return core.rearmTimers();
        await this.clear({ who: 'system', from: 'timer' }, 'expired');
        await core.evaluate();
      })
      .catch((err) => core.deps.logger.error({ err }, 'quiet override expiry failed'));
  }
}
