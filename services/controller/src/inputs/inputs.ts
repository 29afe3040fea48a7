import type { GeneratorController } from '../domain/generator-controller.js';
import type { DomainLogger } from '../domain/types.js';
import { type GpioInputPort, hoaFromContacts } from './gpio-port.js';

/**
 * Feeds the GPIO inputs to the state machine: the input signal always, the HOA selector when
 * HOA_SWITCH_ENABLED. Returns a promise of the latest handling, for tests and dev endpoints.
 */
export class InputBridge {
  private last: Promise<void> = Promise.resolve();

  constructor(
    private readonly gpio: GpioInputPort,
    private readonly controller: GeneratorController,
    private readonly opts: { hoaEnabled: boolean; logger: DomainLogger },
  ) {}

  /** Reads the current levels (after boot) and follows every change. */
  async start(): Promise<void> {
    this.gpio.onChange((input) => {
      this.last = this.apply(input === 'bms' ? 'bms' : 'hoa');
    });
    await this.apply('bms');
    if (this.opts.hoaEnabled) await this.apply('hoa');
    try {
      await this.controller.reconcileQuietOverride();
    } catch (err) {
      this.opts.logger.error({ err }, 'Quiet override check at start failed');
    }
  }

  settled(): Promise<void> {
    return this.last;
  }

  private async apply(which: 'bms' | 'hoa'): Promise<void> {
    try {
      if (which === 'bms') await this.controller.setBmsSignal(this.gpio.read('bms'));
      else if (this.opts.hoaEnabled) {
        await this.controller.setHoaPosition(
          hoaFromContacts(this.gpio.read('hoa_quiet'), this.gpio.read('hoa_run')),
        );
      }
    } catch (err) {
      this.opts.logger.error({ err, input: which }, 'input handling failed');
    }
  }
}
