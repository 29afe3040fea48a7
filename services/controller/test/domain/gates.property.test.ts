import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkStart } from '../../src/domain/gates.js';
import { INITIAL_STATE, type PersistedState } from '../../src/domain/types.js';

const NOW = 1_800_000_000_000;

const stateArb = fc.record({
  generator_running: fc.boolean(),
  slave_relay_armed: fc.boolean(),
  slave_physical_safety_engaged: fc.boolean(),
  lockout_active: fc.boolean(),
  cooldown_until: fc.option(fc.integer({ min: NOW - 3_600_000, max: NOW + 3_600_000 }), { nil: null }),
  override_type: fc.constantFrom(null, 'force_run' as const, 'force_stop' as const),
  quiet_override_active: fc.boolean(),
});
const input = fc.record({
  s: stateArb,
  hoa: fc.constantFrom('auto' as const, 'quiet' as const, 'run' as const, 'fault' as const),
  trigger: fc.constantFrom('bms' as const, 'manual' as const, 'scheduled' as const, 'exercise' as const),
  hoaRun: fc.boolean(),
});

interface Case {
  s: Partial<PersistedState>;
  hoa: 'auto' | 'quiet' | 'run' | 'fault';
  trigger: 'bms' | 'manual' | 'scheduled' | 'exercise';
  hoaRun: boolean;
}

const run = (v: Case) =>
  checkStart(
    { trigger: v.trigger, hoaRun: v.hoaRun },
    { state: { ...INITIAL_STATE, ...v.s }, hoa: v.hoa === 'fault' ? 'auto' : v.hoa, now: NOW },
  );

describe('start gates (properties)', () => {
  it('EPO refuses every start path, whatever else holds', () => {
    fc.assert(
      fc.property(input, (v) => {
        fc.pre(!v.s.generator_running);
        const r = run({ ...v, s: { ...v.s, slave_physical_safety_engaged: true } });
        expect(r?.code).toBe('epo');
      }),
    );
  });

  it('only the HOA Run hold starts a disarmed generator', () => {
    fc.assert(
      fc.property(input, (v) => {
        const r = run({ ...v, s: { ...v.s, slave_relay_armed: false } });
        if (r === null) expect(v.hoaRun).toBe(true);
      }),
    );
  });

  it('a lockout refuses every start but the HOA Run hold; a cooldown never refuses a manual start', () => {
    fc.assert(
      fc.property(input, (v) => {
        const locked = run({ ...v, s: { ...v.s, lockout_active: true } });
        if (locked === null) expect(v.hoaRun).toBe(true);
        const r = run(v);
        if (v.trigger === 'manual') expect(r?.code).not.toBe('cooldown');
      }),
    );
  });

  it('the Quiet gate refuses automation only, and never with the Quiet override on', () => {
    fc.assert(
      fc.property(input, (v) => {
        const r = run(v);
        if (r?.code === 'quiet') {
          expect(v.trigger).not.toBe('manual');
          expect(v.hoa).toBe('quiet');
          expect(v.s.quiet_override_active).toBe(false);
        }
      }),
    );
  });
});
