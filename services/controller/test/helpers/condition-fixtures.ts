/**
 * The two conditions the start-condition tests drive, as a GX site would set them: start below 30 %
 * state of charge held 2 minutes, stop above 85 % held 1 minute; start above 3 kW of AC load held 10 s,
 * stop below 1 kW held 30 s.
 */
export const SOC_CONDITION = {
  enabled: true,
  start_value: 30,
  start_delay_seconds: 120,
  stop_value: 85,
  stop_delay_seconds: 60,
};

export const LOAD_CONDITION = {
  enabled: true,
  start_value: 3000,
  start_delay_seconds: 10,
  stop_value: 1000,
  stop_delay_seconds: 30,
};
