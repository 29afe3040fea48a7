import { ManualClock } from '@outpost/runtime/clock';
import { describe, expect, it } from 'vitest';
import { harness, USER } from '../helpers/harness.js';

const MIN = 60_000;
const HOUR = 60 * MIN;

describe('engine-hour meter', () => {
  it('without feedback it counts relay-ON time: 3 runs of 1 h add 3.0 h', async () => {
    const h = await harness({ armed: true });
    for (let i = 0; i < 3; i++) {
      await h.controller.start({ trigger: 'manual', actor: USER });
      await h.advance(HOUR);
      await h.controller.stop('manual', USER);
      await h.advance(30 * MIN);
    }
    expect(h.controller.view().engine_hours).toBe(3);
    // Written with the next periodic stamp, so a restart finds it.
    await h.advance(MIN);
    expect(h.repo.state?.engine_ms).toBe(3 * HOUR);
  });

  it('with feedback it counts what the feedback says ran, external runs included', async () => {
    const h = await harness({
      armed: true,
      settings: { health: { running_feedback_source: 'api', fail_to_start_policy: 'drop_and_lockout' } },
    });
    await h.controller.start({ trigger: 'manual', actor: USER });
    // The engine catches 30 s after relay ON; those 30 s of cranking are not engine hours.
    await h.advance(30_000);
    await h.controller.runningFeedback('api', true);
    await h.advance(HOUR);
    await h.controller.stop('manual', USER);
    await h.controller.runningFeedback('api', false);
    await h.controller.runningFeedback('api', true);
    await h.advance(HOUR);
    await h.controller.runningFeedback('api', false);
    expect(h.controller.healthStatus().engine_hours).toBe(2);
  });

  it('a crash mid-run loses at most one write interval, and the restarted meter does not count the outage', async () => {
    const h = await harness({ armed: true });
    await h.controller.start({ trigger: 'manual', actor: USER });
    await h.advance(90 * MIN + 40_000);
    expect(h.controller.view().engine_hours).toBeCloseTo(1.5 + 40 / 3600, 2);
    // The process dies: no shutdown write, only what the periodic writes stored.
    h.controller.shutdown();
    const later = new ManualClock(h.clock.now() + 10 * MIN);
    const after = await harness({ repo: h.repo, clock: later });
    const hours = after.controller.view().engine_hours ?? 0;
    // One write interval is 60 s (1/60 h); the view rounds to a thousandth of an hour.
    expect(hours).toBeGreaterThanOrEqual(1.5 + 40 / 3600 - 1 / 60 - 0.001);
    expect(hours).toBeLessThan(1.5 + 40 / 3600);
    await after.advance(HOUR);
    expect(after.controller.view().engine_hours).toBe(hours);
  });

  it('setting the meter is audited and counting continues from the new value', async () => {
    const h = await harness({ armed: true });
    await h.controller.setEngineHours(100, USER);
    expect(h.repo.audit.at(-1)).toMatchObject({
      action: 'hour_meter.set',
      who: 'admin',
      details: { previous_hours: 0, hours: 100 },
    });
    await h.controller.start({ trigger: 'manual', actor: USER });
    await h.advance(30 * MIN);
    expect(h.controller.view().engine_hours).toBe(100.5);
  });
});
