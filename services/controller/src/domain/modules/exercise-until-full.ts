/** The exercise option "run until the battery is full" (PUT /api/exercise until_battery_full). */
export interface ExerciseUntilFull {
  /** The soc value (%) that counts as full. */
  full_soc: number;
  /** The longest the run may last, from its start, in minutes (never shorter than its duration). */
  max_minutes: number;
}

/** The soc source while it is fresh: its value and when it goes stale. */
export interface FreshSoc {
  value: number;
  staleAt: number;
}

export type ExerciseHold =
  /** Keep running; look again at `until` at the latest (the maximum, or when the soc goes stale). */
  | { hold: true; until: number }
  /** End the run now (exercise_end), with why and the soc value that ended it. */
  | { hold: false; note: string; value: number | null };

/**
 * Whether an exercise run past its duration keeps running. Only a fresh soc below full holds it:
 * a stale, missing or invalid soc ends it at its duration (a value it cannot trust never extends a
 * run), and the maximum bounds it whatever the soc says.
 */
export function exerciseHold(
  cfg: ExerciseUntilFull | null,
  startedAt: number,
  now: number,
  soc: FreshSoc | null,
): ExerciseHold {
  if (cfg === null) return { hold: false, note: 'duration reached', value: null };
  const maxEnd = startedAt + cfg.max_minutes * 60_000;
  if (now >= maxEnd)
    return { hold: false, note: 'maximum exercise duration reached', value: soc?.value ?? null };
  if (soc === null) return { hold: false, note: 'duration reached; state of charge unknown', value: null };
  if (soc.value >= cfg.full_soc)
    return { hold: false, note: `battery full (soc ${soc.value} %)`, value: soc.value };
  return { hold: true, until: Math.min(maxEnd, soc.staleAt) };
}
