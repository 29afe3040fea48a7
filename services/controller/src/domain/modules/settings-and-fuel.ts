import type { ControllerModule, ModuleHost } from '../controller-module.js';
import type { Actor, FuelSettings, HealthSettings, RuntimeLimitSettings, Settings } from '../types.js';

export type SettingsPatch = Partial<Omit<Settings, 'limits' | 'fuel' | 'health'>> & {
  limits?: Partial<RuntimeLimitSettings>;
  fuel?: Partial<FuelSettings>;
  health?: Partial<HealthSettings>;
};

/** The operator's settings (limits, fuel, debounce, boot policy) and the fuel-usage counter. */
export class SettingsAndFuel implements ControllerModule {
  constructor(private readonly core: ModuleHost) {}

  start(): void {}

  /** Gallons per hour fixed at the start of the current run. */
  get currentRunRate(): number {
    return this.core.state.generator_running ? this.core.runGph : 0;
  }

  update(patch: SettingsPatch, actor: Actor): Promise<Settings> {
    const core = this.core;
    return core.serial.run(async () => {
      const next: Settings = {
        ...core.settings,
        ...patch,
        limits: { ...core.settings.limits, ...patch.limits },
        fuel: { ...core.settings.fuel, ...patch.fuel },
        health: { ...core.settings.health, ...patch.health },
      };
      await core.persistNow({
        label: 'settings',
        settings: next,
        audit: [{ action: 'settings.update', actor, details: patch }],
      });
      core.settings = next;
      core.afterChange(false);
      await core.evaluate();
      return core.settings;
    });
  }

  resetFuel(actor: Actor): Promise<number> {
    const core = this.core;
    return core.serial.run(async () => {
      const next = { ...core.state, fuel_reset_at: core.now };
      await core.persistNow({
        label: 'fuel:reset',
        state: next,
        audit: [{ action: 'fuel_usage.reset', actor }],
      });
      core.state = next;
      core.meters.fuelReset(next.fuel_reset_at);
      // HA's fuel sensor hears of the reset now, not at the next change of state.
      core.afterChange(false);
      return core.now;
    });
  }
}
