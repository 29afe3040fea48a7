import { describe, expect, it } from 'vitest';
import { SIMULATOR_STATUS_MEANING, STATUS_TONES, simulatorCountsOnline, toneOf } from '../src/status.js';

describe('colours by meaning', () => {
  it('normal idle is neutral: stopped, disarmed, relay off, nothing wrong', () => {
    for (const m of ['stopped', 'idle', 'disarmed', 'armed', 'relay_off', 'clear', 'ok', 'auto'] as const)
      expect(toneOf(m), m).toBe('neutral');
  });

  it('running is green', () => {
    expect(toneOf('running')).toBe('good');
    expect(toneOf('relay_on')).toBe('good');
  });

  it('warnings are amber: stale, clock offset, selector not in auto, a lost feed', () => {
    for (const m of ['stale', 'clock_offset', 'not_auto', 'no_input', 'feed_lost', 'lockout'] as const)
      expect(toneOf(m), m).toBe('warn');
  });

  it('red is for faults only: failsafe, EPO, offline, alarms', () => {
    for (const m of ['failsafe', 'epo', 'offline', 'alarm'] as const) expect(toneOf(m), m).toBe('bad');
    const red = Object.entries(STATUS_TONES)
      .filter(([, tone]) => tone === 'bad')
      .map(([m]) => m)
      .sort();
    expect(red).toEqual(['alarm', 'epo', 'error', 'failed', 'failsafe', 'offline']);
  });

  it("every fleet simulator status word has a meaning, and only 'offline' is red", () => {
    const words = ['offline', 'online, idle', 'stopped', 'no input', 'feed lost', 'online'];
    for (const w of words) expect(SIMULATOR_STATUS_MEANING[w], w).toBeDefined();
    const red = words.filter((w) => toneOf(SIMULATOR_STATUS_MEANING[w] as 'offline') === 'bad');
    expect(red).toEqual(['offline']);
  });

  it('a simulator counts as online exactly when its status word says online', () => {
    const words = ['offline', 'online, idle', 'stopped', 'no input', 'feed lost', 'online'];
    expect(words.filter(simulatorCountsOnline)).toEqual(['online, idle', 'online']);
  });
});
