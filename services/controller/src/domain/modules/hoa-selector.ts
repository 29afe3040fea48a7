import type { HoaPosition } from '@outpost/contracts';
import type { ControllerModule, ModuleHost } from '../controller-module.js';
import { systemEvent } from '../events.js';
import type { EventDraft } from '../types.js';
import { HOA } from './actors.js';
import type { QuietClearing } from './quiet-override.js';

/**
 * The Hand-Off-Auto selector. At Run it holds the generator on ahead of every other input; leaving
 * Run stops the run it started, and leaving Quiet ends the Quiet override.
 */
export class HoaSelector implements ControllerModule {
  private started = false;

  constructor(
    private readonly core: ModuleHost,
    private readonly quiet: QuietClearing,
  ) {}

  start(): void {
    this.core.events.on('runStopped', (_reason, _actor, outcome) => {
      if (outcome.was_running) this.started = false;
    });
  }

  set(position: HoaPosition): Promise<void> {
    const core = this.core;
    return core.serial.run(async () => {
      const previous = core.hoa;
      if (previous === position) return;
      const prevEffective = core.effectiveHoa();
      core.hoa = position;
      const now = core.now;
      const inBootDelay = now - core.bootAt < core.deps.config.hoaBootDelaySeconds * 1000;
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
      await core.persist({
        label: 'hoa',
        events: () => events,
        audit: [{ action: 'hoa.position', actor: HOA, details: { position, previous } }],
      });
      if (prevEffective === 'quiet' && core.effectiveHoa() !== 'quiet')
        await this.quiet.clear(HOA, 'selector left Quiet');
      if (prevEffective === 'run' && core.effectiveHoa() !== 'run') {
        core.hoaHold = false;
        if (this.started && core.state.generator_running) {
          this.started = false;
          await core.doStop('manual', HOA, 'HOA selector left Run');
        }
        this.started = false;
      }
      core.afterChange(events.length > 0);
      await core.evaluate();
    });
  }

  /** First in precedence: the selector at Run starts or holds the generator, whatever else asks. */
  async decide(): Promise<boolean> {
    const core = this.core;
    if (core.effectiveHoa() !== 'run') return false;
    if (core.state.generator_running) {
      if (!core.hoaHold) {
        core.hoaHold = true;
        core.rearmTimers();
      }
      return true;
    }
    if (core.checkStart('manual', true)) return true;
    await core.doStart({ trigger: 'manual', actor: HOA, hoaRun: true, notes: 'HOA selector at Run' });
    this.started = true;
    return true;
  }
}
