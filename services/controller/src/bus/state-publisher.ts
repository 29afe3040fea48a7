import type { generator } from '@outpost/contracts';
import type { DomainLogger } from '../domain/types.js';

export interface StateSink {
  readonly connected: boolean;
  publish(state: generator.GeneratorState): Promise<void>;
}

/** Retained generator state on every change (coalesced), and again after each reconnect. */
export class StatePublisher {
  private pending = false;

  constructor(
    private readonly sink: StateSink,
    private readonly view: () => generator.GeneratorState,
    private readonly logger: DomainLogger,
  ) {}

  schedule(): void {
    if (this.pending) return;
    this.pending = true;
    setImmediate(() => {
      this.pending = false;
      void this.publishNow();
    });
  }

  async publishNow(): Promise<void> {
    if (!this.sink.connected) return;
    try {
      await this.sink.publish(this.view());
    } catch (err) {
      this.logger.warn({ err }, 'state publish failed');
    }
  }
}
