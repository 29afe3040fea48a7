import { ConditionsConfig } from '@outpost/contracts/conditions';
import { describe, expect, it } from 'vitest';
import type { ExerciseUntilFull } from '../../src/domain/modules/exercise-until-full.js';
import { harness } from '../helpers/harness.js';

const S = 1000;
const MIN = 60 * S;
const SCHEDULER = { who: 'scheduler', from: 'exercise' };

/** An armed controller with a REST soc source (stale after 5 min) and the until-full option. */
async function exerciseWithSoc(untilFull: ExerciseUntilFull | null) {
  const h = await harness({ armed: true });
  await h.controller.conditions.configure(
    ConditionsConfig.parse({ sources: { soc: { type: 'rest', stale_after_seconds: 300 } } }),
  );
  h.controller.setExerciseUntilFull(untilFull);
  const soc = (v: number | null) => h.controller.conditions.reading('soc', v);
  /** Runs the clock on by whole minutes, the soc source reporting `v` at the start of each. */
  const reportFor = async (minutes: number, v: number) => {
    for (let i = 0; i < minutes; i++) {
      await soc(v);
      await h.advance(MIN);
    }
  };
  const startExercise = () =>
    h.controller.start({ trigger: 'exercise', actor: SCHEDULER, duration_minutes: 15, notes: 'exercise' });
  return { ...h, soc, reportFor, startExercise };
}

describe('exercise until the battery is full', () => {
  it('a soc below full keeps the exercise running past its duration; it stops when the soc reaches full', async () => {
    const h = await exerciseWithSoc({ full_soc: 100, max_minutes: 240 });
    await h.startExercise();
    await h.reportFor(15, 80);
    expect(h.controller.view()).toMatchObject({ running: true, trigger: 'exercise' });
    await h.reportFor(25, 97);
    expect(h.controller.view().running).toBe(true);
    await h.soc(100);
    await h.settle();
    expect(h.controller.view().running).toBe(false);
    expect(h.repo.runs[0]).toMatchObject({
      trigger_type: 'exercise',
      stop_reason: 'exercise_end',
      stop_value: 100,
      duration_seconds: 40 * 60,
    });
  });

  it('a configurable full value: 95 % counts as full when battery_full_soc is 95', async () => {
    const h = await exerciseWithSoc({ full_soc: 95, max_minutes: 240 });
    await h.startExercise();
    await h.reportFor(20, 90);
    expect(h.controller.view().running).toBe(true);
    await h.soc(95.5);
    await h.settle();
    expect(h.repo.runs[0]).toMatchObject({ stop_reason: 'exercise_end', stop_value: 95.5 });
  });

  it('a soc already full ends the exercise at its normal duration, not before', async () => {
    const h = await exerciseWithSoc({ full_soc: 100, max_minutes: 240 });
    await h.startExercise();
    await h.reportFor(14, 100);
    expect(h.controller.view().running).toBe(true);
    await h.reportFor(1, 100);
    expect(h.controller.view().running).toBe(false);
    expect(h.repo.runs[0]).toMatchObject({ stop_reason: 'exercise_end', duration_seconds: 15 * 60 });
  });

  it('a stale soc ends the exercise at its normal duration', async () => {
    const h = await exerciseWithSoc({ full_soc: 100, max_minutes: 240 });
    await h.soc(50);
    await h.startExercise();
    // The source falls silent: stale after 5 minutes, long before the 15-minute duration.
    await h.advance(14 * MIN);
    expect(h.controller.view().running).toBe(true);
    await h.advance(1 * MIN);
    expect(h.controller.view().running).toBe(false);
    expect(h.repo.runs[0]).toMatchObject({
      stop_reason: 'exercise_end',
      stop_value: null,
      duration_seconds: 15 * 60,
    });
  });

  it('a soc that falls silent during the extra time ends the run when it goes stale', async () => {
    const h = await exerciseWithSoc({ full_soc: 100, max_minutes: 240 });
    await h.startExercise();
    await h.reportFor(20, 70);
    expect(h.controller.view().running).toBe(true);
    // Last reading one minute ago: stale 4 minutes from now.
    await h.advance(3 * MIN + 59 * S);
    expect(h.controller.view().running).toBe(true);
    await h.advance(1 * S);
    expect(h.controller.view().running).toBe(false);
    expect(h.repo.runs[0]).toMatchObject({ stop_reason: 'exercise_end', duration_seconds: 24 * 60 });
  });

  it('the maximum bounds the run even while the soc stays below full', async () => {
    const h = await exerciseWithSoc({ full_soc: 100, max_minutes: 60 });
    await h.startExercise();
    await h.reportFor(59, 60);
    expect(h.controller.view().running).toBe(true);
    await h.reportFor(1, 60);
    expect(h.controller.view().running).toBe(false);
    expect(h.repo.runs[0]).toMatchObject({ stop_reason: 'exercise_end', duration_seconds: 60 * 60 });
  });

  it('without the option the exercise ends at its duration whatever the soc, and other timed runs never wait for it', async () => {
    const off = await exerciseWithSoc(null);
    await off.startExercise();
    await off.reportFor(15, 20);
    expect(off.controller.view().running).toBe(false);
    expect(off.repo.runs[0]).toMatchObject({ stop_reason: 'exercise_end', duration_seconds: 15 * 60 });

    const scheduled = await exerciseWithSoc({ full_soc: 100, max_minutes: 240 });
    await scheduled.controller.start({ trigger: 'scheduled', actor: SCHEDULER, duration_minutes: 15 });
    await scheduled.reportFor(15, 20);
    expect(scheduled.controller.view().running).toBe(false);
    expect(scheduled.repo.runs[0]).toMatchObject({ stop_reason: 'scheduled_end', duration_seconds: 15 * 60 });
  });
});
