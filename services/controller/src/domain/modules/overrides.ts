import type { OverrideType } from '@outpost/contracts';
import type { ControllerModule, ModuleHost } from '../controller-module.js';
import { systemEvent } from '../events.js';
import type { Actor, PersistedState } from '../types.js';

/** The operator's force_run and force_stop overrides; the gates read them from the state. */
export class Overrides implements ControllerModule {
  constructor(private readonly core: ModuleHost) {}

  start(): void {}

  enable(type: OverrideType, actor: Actor): Promise<PersistedState> {
    const core = this.core;
    return core.serial.run(async () => {
      if (core.state.override_type !== type) {
        const now = core.now;
        const next = { ...core.state, override_type: type, override_since: now };
        await core.persistNow({
          label: 'override:enable',
          state: next,
          events: () => [
            systemEvent('override_enabled', now, type, `${type} override enabled by ${actor.who}`, {
              override_type: type,
            }),
          ],
          audit: [{ action: 'override.enable', actor, details: { override_type: type } }],
        });
        core.state = next;
        core.afterChange(true);
        if (type === 'force_stop' && core.state.generator_running && !core.hoaHold) {
          await core.doStop('override', actor, 'force_stop override enabled');
        }
      }
      await core.evaluate();
      return core.state;
    });
  }

  disable(actor: Actor): Promise<PersistedState> {
    const core = this.core;
    return core.serial.run(async () => {
      const previous = core.state.override_type;
      if (previous !== null) {
        const now = core.now;
        const next = { ...core.state, override_type: null, override_since: null };
        await core.persistNow({
          label: 'override:disable',
          state: next,
          events: () => [
            systemEvent('override_disabled', now, 'none', `${previous} override disabled by ${actor.who}`, {
              override_type: previous,
            }),
          ],
          audit: [{ action: 'override.disable', actor, details: { override_type: previous } }],
        });
        core.state = next;
        core.afterChange(true);
      }
      await core.evaluate();
      return core.state;
    });
  }
}
