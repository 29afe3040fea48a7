import { type Clock, systemClock } from '@outpost/runtime/clock';
import type { GeneratorController } from '../domain/generator-controller.js';
import type { DomainLogger } from '../domain/types.js';
import { Debounced } from './feedback-debounce.js';
import { type GpioInputPort, hoaFromContacts } from './gpio-port.js';

export interface InputBridgeOptions {
  hoaEnabled: boolean;
  logger: DomainLogger;
  /** The debounce's time; the service passes its own (tests a manual one). */
  clock?: Clock;
  /** A running-feedback line is wired (RUNNING_FEEDBACK_GPIO_PIN, or mock GPIO). */
  feedbackWired?: boolean;
  /** RUNNING_FEEDBACK_DEBOUNCE_MS. */
  feedbackDebounceMs?: number;
}

/**
 * Feeds the GPIO inputs to the state machine: the input signal always, the HOA selector when
 * HOA_SWITCH_ENABLED, the running feedback (debounced) when its line is wired. Returns a promise of
 * the latest handling, for tests and dev endpoints.
 */
export class InputBridge {
  private last: Promise<void> = Promise.resolve();
  private readonly feedback: Debounced;

  constructor(
    private readonly gpio: GpioInputPort,
    private readonly controller: GeneratorController,
    private readonly opts: InputBridgeOptions,
  ) {
    this.feedback = new Debounced(opts.clock ?? systemClock, opts.feedbackDebounceMs ?? 0, (running) => {
      this.last = this.guard('running_feedback', () => this.controller.runningFeedback('gpio', running));
    });
  }

  /** Reads the current levels (after boot) and follows every change. */
  async start(): Promise<void> {
    this.gpio.onChange((input) => {
      if (input === 'running_feedback') this.readFeedback();
      else this.last = this.apply(input === 'bms' ? 'bms' : 'hoa');
    });
    await this.apply('bms');
    if (this.opts.hoaEnabled) await this.apply('hoa');
    this.readFeedback();
    await this.last;
    try {
      await this.controller.reconcileQuietOverride();
    } catch (err) {
      this.opts.logger.error({ err }, 'Quiet override check at start failed');
    }
  }

  settled(): Promise<void> {
    return this.last;
  }

  stop(): void {
    this.feedback.stop();
  }

  private readFeedback(): void {
    if (this.opts.feedbackWired) this.feedback.set(this.gpio.read('running_feedback'));
  }

  private apply(which: 'bms' | 'hoa'): Promise<void> {
    return this.guard(which, async () => {
      if (which === 'bms') await this.controller.setBmsSignal(this.gpio.read('bms'));
      else if (this.opts.hoaEnabled) {
        await this.controller.setHoaPosition(
          hoaFromContacts(this.gpio.read('hoa_quiet'), this.gpio.read('hoa_run')),
        );
      }
    });
  }

  private async guard(input: string, fn: () => Promise<void>): Promise<void> {
    try {
      await fn();
    } catch (err) {
      this.opts.logger.error({ err, input }, 'input handling failed');
    }
  }
}
