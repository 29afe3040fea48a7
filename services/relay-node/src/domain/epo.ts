import type { Clock, TimerHandle } from '@outpost/runtime/clock';

/** Spec, hardware switches: the EPO input is polled every 25 ms and needs 2 consecutive reads. */
export const EPO_POLL_MS = 25;
export const EPO_REQUIRED_READS = 2;
/** The running-feedback input: an AC-sense contact chatters while the engine catches, so 1 s stable. */
export const FEEDBACK_POLL_MS = 100;
export const FEEDBACK_REQUIRED_READS = 10;

/** Debounces the normally-open EPO signalling contact: a change needs N equal consecutive reads. */
export class EpoDebouncer {
  private state = false;
  private candidate: boolean | null = null;
  private count = 0;

  constructor(private readonly requiredReads = EPO_REQUIRED_READS) {}

  get engaged(): boolean {
    return this.state;
  }

  /** Feeds one read (true = contact closed = EPO pressed); returns the new state when it changes. */
  feed(pressed: boolean): boolean | null {
    if (pressed === this.state) {
      this.candidate = null;
      this.count = 0;
      return null;
    }
    if (this.candidate !== pressed) {
      this.candidate = pressed;
      this.count = 0;
    }
    this.count += 1;
    if (this.count < this.requiredReads) return null;
    this.state = pressed;
    this.candidate = null;
    this.count = 0;
    return pressed;
  }
}

export interface EpoMonitorOptions {
  clock: Clock;
  /** Current contact reading; null while the input has not reported yet (not counted). */
  read: () => boolean | null;
  onChange: (engaged: boolean) => void;
  pollMs?: number;
  /** Equal consecutive reads a change needs (the running-feedback input asks for more than the EPO). */
  requiredReads?: number;
}

/** A polled, debounced contact: the EPO, and the same way the generator's running feedback. */
export class EpoMonitor {
  private readonly debouncer: EpoDebouncer;
  private timer: TimerHandle | null = null;

  constructor(private readonly opts: EpoMonitorOptions) {
    this.debouncer = new EpoDebouncer(opts.requiredReads ?? EPO_REQUIRED_READS);
  }

  get engaged(): boolean {
    return this.debouncer.engaged;
  }

  start(): void {
    if (this.timer) return;
    this.timer = this.opts.clock.setInterval(() => this.poll(), this.opts.pollMs ?? EPO_POLL_MS);
  }

  stop(): void {
    this.opts.clock.clearInterval(this.timer);
    this.timer = null;
  }

  private poll(): void {
    const reading = this.opts.read();
    if (reading === null) return;
    const change = this.debouncer.feed(reading);
    if (change !== null) this.opts.onChange(change);
  }
}
