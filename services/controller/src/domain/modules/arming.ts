import type { ControllerModule, ModuleHost } from '../controller-module.js';
import { type Actor, disarmedSince, type PersistedState } from '../types.js';

/** Arming the relay node and the automation together, and disarming them. */
export class Arming implements ControllerModule {
  constructor(private readonly core: ModuleHost) {}

  start(): void {}

  arm(actor: Actor): Promise<PersistedState> {
    const core = this.core;
    return core.serial.run(async () => {
      const next = {
        ...core.state,
        slave_relay_armed: true,
        automation_armed: true,
        automation_disarmed_at: null,
        manual_disarm_active: false,
      };
      await core.persistNow({ label: 'arm', state: next, audit: [{ action: 'generator.arm', actor }] });
      core.state = next;
      await core.safeRelay(() => core.deps.relay.setArmed(true));
      core.afterChange(false);
      await core.evaluate();
      return core.state;
    });
  }

  /**
   * Always succeeds: disarming is a safety action and is queued while the database is down. A run in
   * progress ends with stop reason `disarmed`: the relay node opens the relay on a lease that says
   * disarmed, so every view (state, history, webhooks, Home Assistant) says the generator stopped.
   */
  disarm(actor: Actor): Promise<PersistedState> {
    const core = this.core;
    return core.serial.run(async () => {
      core.state = {
        ...core.state,
        slave_relay_armed: false,
        automation_armed: false,
        automation_disarmed_at: disarmedSince(core.state, core.now),
      };
      if (core.state.generator_running) {
        // The stop sequence sends the lease that says disarmed and OFF.
        await core.doStop('disarmed', actor, 'automation disarmed during the run');
      } else {
        await core.safeRelay(() => core.deps.relay.setArmed(false));
      }
      await core.persist({
        label: 'disarm',
        state: core.state,
        audit: [{ action: 'generator.disarm', actor }],
      });
      core.afterChange(false);
      return core.state;
    });
  }
}
