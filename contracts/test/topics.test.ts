import { describe, expect, it } from 'vitest';
import {
  decodePayload,
  encodePayload,
  filterMatches,
  parseTopic,
  TOPICS,
  topicFilter,
  topicFor,
} from '../src/topics.js';

describe('topic map', () => {
  it('builds concrete topics under the prefix', () => {
    expect(topicFor('relaynodeDesired', { id: 'shed' })).toBe('outpost/relaynode/shed/desired');
    expect(topicFor('controllerEvent', { id: 'main', name: 'generator_started' }, 'site7')).toBe(
      'site7/controller/main/event/generator_started',
    );
    expect(topicFor('haDiscovery', { id: 'outpost_main' })).toBe('homeassistant/device/outpost_main/config');
  });

  it('refuses parameters that would inject topic levels or wildcards', () => {
    for (const id of ['a/b', '+', '#', '']) expect(() => topicFor('relaynodeState', { id })).toThrow();
  });

  it('makes filters with + for omitted parameters and parses topics back', () => {
    const f = topicFilter('availability', { svc: 'simulator' });
    expect(f).toBe('outpost/simulator/+/availability');
    expect(filterMatches(f, 'outpost/simulator/sim9/availability')).toBe(true);
    expect(filterMatches(f, 'outpost/simulator/sim9/position')).toBe(false);
    expect(filterMatches('outpost/#', 'outpost/a/b/c')).toBe(true);
    expect(parseTopic('controllerEvent', 'outpost/controller/c1/event/lockout_activated')).toEqual({
      id: 'c1',
      name: 'lockout_activated',
    });
    expect(parseTopic('controllerEvent', 'outpost/controller/c1/state')).toBeNull();
  });

  it('marks every topic that can switch a relay as a non-retained command', () => {
    for (const key of ['controllerSet', 'relaynodeDesired', 'request'] as const) {
      expect(TOPICS[key].command).toBe(true);
      expect(TOPICS[key].retain).toBe(false);
    }
    expect(TOPICS.controllerState.retain).toBe(true);
    expect(TOPICS.relaynodeState.retain).toBe(true);
  });

  it('encodes availability as the plain strings Home Assistant expects', () => {
    expect(encodePayload('availability', 'online')).toBe('online');
    expect(decodePayload('availability', Buffer.from('offline'))).toEqual({ ok: true, value: 'offline' });
    expect(decodePayload('availability', 'maybe').ok).toBe(false);
  });

  it('decodes without throwing on garbage and names the bad field', () => {
    expect(decodePayload('relaynodeDesired', '{{{')).toEqual({
      ok: false,
      error: 'payload is not valid JSON',
    });
    const r = decodePayload('relaynodeDesired', JSON.stringify({ epoch: 'e', seq: 'one' }));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/seq: /);
  });

  it('refuses to encode a payload that breaks the contract', () => {
    expect(() => encodePayload('simulatorPosition', { lat: 100 } as never)).toThrow();
  });
});

describe('the genset topic', () => {
  const unknown = {
    protocol: 'dse_gencomm',
    transport: 'tcp',
    reachable: false,
    stale: true,
    fault: 'timeout',
    warnings: ['genset_unreachable'],
    identity: { manufacturer_code: null, model_number: null, model: null, family: null, serial: null },
    mode: null,
    engine_state: null,
    running: null,
    running_source: null,
    instruments: {
      oil_pressure_kpa: null,
      coolant_temperature_c: null,
      oil_temperature_c: null,
      fuel_level_percent: null,
      battery_voltage_v: null,
      engine_speed_rpm: null,
      frequency_hz: null,
      voltage_v: [null, null, null],
      current_a: [null, null, null],
      power_w: [null, null, null],
      total_power_w: null,
      load_percent: null,
    },
    accumulated: { engine_run_time_s: null, energy_kwh: null, starts: null },
    alarms: { level: null, active: [] },
    last_read_at: 1_790_000_000,
    updated_at: 1_790_000_010,
  } as const;

  it('is retained state the relay node publishes on its own topic and the controller reads', () => {
    expect(topicFor('relaynodeGenset', { id: 'shed' })).toBe('outpost/relaynode/shed/genset');
    expect(TOPICS.relaynodeGenset.retain).toBe(true);
    expect(TOPICS.relaynodeGenset.command).toBe(false);
    expect(TOPICS.relaynodeGenset.publish.map((g) => g.role)).toEqual(['relaynode']);
    expect(TOPICS.relaynodeGenset.subscribe.map((g) => g.role)).toContain('controller');
  });

  it('carries unknown values as null, and a stale message never says stopped', () => {
    expect(decodePayload('relaynodeGenset', JSON.stringify(unknown)).ok).toBe(true);
    const stoppedWhileSilent = { ...unknown, running: false, engine_state: 'stopped' };
    const r = decodePayload('relaynodeGenset', JSON.stringify(stoppedWhileSilent));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/running|engine_state/);
    expect(
      decodePayload('relaynodeGenset', JSON.stringify({ ...unknown, stale: false, running: false })).ok,
    ).toBe(true);
  });
});
