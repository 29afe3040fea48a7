/**
 * Names shared by the services and the browser consoles, as plain constants: a console imports them
 * from `@outpost/contracts/names` without pulling the schemas (and zod) into its bundle.
 */

/** Start conditions: each is also the trigger of the run it starts and the stop reason of one it ends. */
export const CONDITION_NAMES = [
  'soc',
  'battery_voltage',
  'battery_current',
  'ac_load',
  'high_temperature',
  'overload',
] as const;

/**
 * Generator-control spec: "Trigger values", plus `external`: a run the generator's running feedback
 * showed while Outpost had not asked for one (started at its own panel); then the start conditions.
 */
export const TRIGGERS = ['bms', 'manual', 'scheduled', 'exercise', 'external', ...CONDITION_NAMES] as const;
