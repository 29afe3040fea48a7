// Wire types come from the shared contracts (type-only: nothing of zod reaches the bundle).
import type { conditions, generator, genset, health } from '@outpost/contracts';
import type { z } from 'zod';

export type GenState = z.infer<typeof generator.GeneratorState>;
export type StartResult = z.infer<typeof generator.StartResponse>;
export type RunRecord = z.infer<typeof generator.RunRecord>;
export type History = z.infer<typeof generator.HistoryResponse>;
/** generator.HISTORY_TOTAL_HEADER, kept here as a literal so no zod code reaches the bundle. */
export const HISTORY_TOTAL_HEADER = 'X-Total-Count';
export type Stats = z.infer<typeof generator.StatsResponse>;
export type FuelSettings = z.infer<typeof generator.FuelSettings>;
export interface ControllerSettings {
  boot_arming_policy: 'fail_safe' | 'preserve_state';
  boot_arming_policy_from_env: string | null;
  bms_debounce_ms: number;
}
export type FuelUsage = z.infer<typeof generator.FuelUsageResponse>;
export type RuntimeLimits = z.infer<typeof generator.RuntimeLimitsResponse>;
export type OverrideStatus = z.infer<typeof generator.OverrideStatus>;
export type Schedule = z.infer<typeof generator.Schedule>;
export type ExerciseStatus = z.infer<typeof generator.ExerciseStatus>;
export type Webhook = z.infer<typeof generator.Webhook>;
export type HoaPosition = NonNullable<GenState['hoa_position']>;

export { TRIGGERS } from '@outpost/contracts/names';
export const HOA_POSITIONS = ['auto', 'quiet', 'run', 'fault'] as const;

export interface DevGpio {
  bms_signal: boolean;
  hoa_quiet: boolean;
  hoa_run: boolean;
  hoa_position: HoaPosition;
}

export type HealthStatus = z.infer<typeof health.HealthStatus>;
export type GensetState = z.infer<typeof genset.GensetState>;
export type MaintenanceItem = z.infer<typeof health.MaintenanceItem>;
export type ExerciseReport = z.infer<typeof health.ExerciseReport>;
export type ConditionsOverview = z.infer<typeof conditions.ConditionsOverview>;
export type ConditionLive = ConditionsOverview['conditions'][number];
export type SourceLive = ConditionsOverview['sources'][number];
export type Samples = z.infer<typeof conditions.SamplesResponse>;
