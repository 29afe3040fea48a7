import { TimerSlot } from '../clock.js';
import type { ControllerModule, ModuleHost } from '../controller-module.js';
import { bmsLowStops } from '../gates.js';
import { BMS } from './actors.js';

/** The building management system's run request: a debounced input that starts and stops runs. */
export class BmsSignal implements ControllerModule {
  /** A manual stop while the signal is still HIGH waits for the signal to fall before auto-starting again. */
  private latched = false;
  private lastRefusal: string | null = null;
  private pending: boolean | null = null;
  private readonly debounce: TimerSlot;

  constructor(private readonly core: ModuleHost) {
    this.debounce = new TimerSlot(core.clock, () => this.applyDebounced());
  }

  start(): void {
    this.core.events.on('runStopped', (reason, actor, outcome) => {
      if (outcome.was_running && reason === 'manual' && actor.who !== 'hoa' && this.core.bmsActive)
        this.latched = true;
    });
  }

  stop(): void {
    this.debounce.cancel();
  }

  /** A raw reading of the input signal; the debounce setting (ms, default 0) must see it stable. */
  set(active: boolean): Promise<void> {
    const core = this.core;
    const debounce = core.settings.bms_debounce_ms;
    if (debounce <= 0) {
      this.debounce.cancel();
      this.pending = null;
      return core.serial.run(() => this.apply(active));
    }
    if (active === core.bmsActive) {
      this.debounce.cancel();
      this.pending = null;
      return Promise.resolve();
    }
    if (this.pending !== active) {
      this.pending = active;
      this.debounce.at(core.now + debounce);
    }
    return Promise.resolve();
  }

  private applyDebounced(): void {
    const value = this.pending;
    this.pending = null;
    if (value === null) return;
    void this.core.serial
      .run(() => this.apply(value))
      .catch((err) => this.core.deps.logger.error({ err }, 'input signal handling failed'));
  }

  private async apply(active: boolean): Promise<void> {
    const core = this.core;
    if (active === core.bmsActive) return;
    core.bmsActive = active;
    if (!active) this.latched = false;
    core.deps.logger.info({ active }, 'input signal changed');
    core.deps.bus.stateChanged();
    await core.evaluate();
  }

  /** After the selector: the signal falling stops an automatic run; rising starts one if the gates allow. */
  async decide(): Promise<boolean> {
    const core = this.core;
    const s = core.state;
    if (s.generator_running) {
      if (!core.bmsActive && bmsLowStops(s, core.hoaHold)) await core.doStop('bms', BMS, null);
      return true;
    }
    if (!core.bmsActive || this.latched) {
      this.lastRefusal = null;
      return true;
    }
    const refusal = core.checkStart('bms');
    if (refusal) {
      if (refusal.code !== this.lastRefusal) {
        core.deps.logger.info({ code: refusal.code }, `input signal start refused: ${refusal.message}`);
        await core.persist({
          label: 'bms:refused',
          audit: [{ action: 'generator.start_refused', actor: BMS, details: { ...refusal } }],
        });
      }
      this.lastRefusal = refusal.code;
      return true;
    }
    this.lastRefusal = null;
    try {
      await core.doStart({ trigger: 'bms', actor: BMS });
    } catch (err) {
      core.deps.logger.warn({ err }, 'input signal start failed');
    }
    return true;
  }
}
