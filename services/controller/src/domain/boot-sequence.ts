import { bootReset } from './boot-reset.js';
import type { GeneratorCore } from './controller-core.js';
import type { BootReport } from './controller-types.js';
import { systemEvent } from './events.js';
import { closeOrphans } from './orphans.js';
import { DEFAULT_SETTINGS, INITIAL_STATE, SYSTEM } from './types.js';

/** Loads settings and state, applies the boot reset, closes orphaned runs and commands the relay OFF. */
export function bootSequence(core: GeneratorCore): Promise<BootReport> {
  return core.serial.run(async () => {
    const { repo, logger } = core.deps;
    const stored = await repo.loadSettings();
    core.settings = stored ?? structuredClone(DEFAULT_SETTINGS);
    const policy = core.deps.config.bootArmingPolicy ?? core.settings.boot_arming_policy;
    const previous = (await repo.loadState()) ?? { ...INITIAL_STATE };
    const now = core.now;
    const reset = bootReset(previous, policy, now);
    core.events.emit('bootRead', previous);
    const { closeRuns, events, closed } = closeOrphans(
      await repo.openRuns(),
      previous.last_alive_at,
      now,
      core.settings.fuel.fuel_type,
    );
    if (reset.relayDisarmedByPolicy) {
      events.push(
        systemEvent(
          'boot_disarmed_failsafe',
          now,
          'disarmed',
          'relay disarmed at boot by the fail_safe policy',
          {
            boot_arming_policy: policy,
          },
        ),
      );
    }
    const bootLog = {
      boot_arming_policy: policy,
      relay_disarmed_by_policy: reset.relayDisarmedByPolicy,
      was_running: reset.wasRunning,
      orphan_runs_closed: closed,
    };
    reset.state.last_alive_at = now;
    await repo.commit({
      label: 'boot',
      state: reset.state,
      settings: stored ? undefined : core.settings,
      closeRuns,
      events: () => events,
      audit: [{ action: 'SYSTEM_BOOT_RESET', actor: SYSTEM, details: bootLog }],
    });
    core.state = reset.state;
    // The meters start from the database, the orphans just closed included.
    core.meters.load(await repo.runTotals(reset.state.fuel_reset_at), reset.state.fuel_reset_at);
    core.bootAt = now;
    const level = reset.relayDisarmedByPolicy || reset.wasRunning ? 'warn' : 'info';
    logger[level]({ event: 'SYSTEM_BOOT_RESET', ...bootLog }, 'SYSTEM_BOOT_RESET');
    if (core.deps.relay.available()) {
      await core.safeRelay(() => core.deps.relay.setArmed(core.state.slave_relay_armed));
      await core.safeRelay(() => core.deps.relay.commandRelay(false));
    } else {
      // The heartbeat sent when the broker connects carries this same intent (armed as reset, OFF).
      logger.info({}, 'relay node link not up yet: the first heartbeat carries the boot state');
    }
    core.afterChange(events.length > 0);
    core.events.emit('booted');
    return bootLog;
  });
}
