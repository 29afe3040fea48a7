import { genset as contract } from '@outpost/contracts';
import { ManualClock } from '@outpost/runtime/clock';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GensetPoller } from '../../src/genset/poller.js';
import type { GensetSettings } from '../../src/genset/settings.js';
import { ModbusSerialIo } from '../../src/genset/transport.js';
import { silentLog } from '../helpers.js';
import { dse4520Running, type FakeDse, startFakeDse, words } from './fake-dse.js';

const POLL_MS = 1000;
const STALE_MS = 5000;
const UNIT = 10;

const settingsFor = (port: number, unitId = UNIT): GensetSettings => ({
  transport: 'tcp',
  host: '127.0.0.1',
  port,
  unitId,
  pollMs: POLL_MS,
  timeoutMs: 300,
  staleMs: STALE_MS,
});

describe('genset reader against a fake DSE 4520 MkII (pymodbus) over Modbus TCP', () => {
  let dse: FakeDse;
  let clock: ManualClock;
  let poller: GensetPoller;
  let published: contract.GensetState[];

  const start = (unitId = UNIT) => {
    clock = new ManualClock();
    published = [];
    poller = new GensetPoller({
      io: new ModbusSerialIo(settingsFor(dse.port, unitId)),
      settings: settingsFor(dse.port, unitId),
      clock,
      log: silentLog,
      onChange: (s) => published.push(s),
    });
    poller.start();
  };
  /** One poll period on the clock, then the poll it started. */
  const poll = async () => {
    await poller.settled();
    clock.advance(POLL_MS);
    await poller.settled();
    return poller.state();
  };

  beforeAll(async () => {
    dse = await startFakeDse({ unit: UNIT, registers: dse4520Running() });
  });
  afterAll(async () => {
    await dse.close();
  });
  beforeEach(async () => {
    await dse.start();
    dse.set({ registers: dse4520Running(), fault: null, missing: [] });
  });
  afterEach(async () => {
    await poller?.stop();
  });

  it('reads identification, mode, engine state, instruments and accumulators', async () => {
    start();
    const s = await poll();
    expect(contract.GensetState.parse(s)).toEqual(s);
    expect(s).toMatchObject({
      reachable: true,
      stale: false,
      fault: null,
      warnings: [],
      identity: { manufacturer_code: 1, model_number: 32807, model: '4520 MkII', family: 'dse_45xx_mkii' },
      mode: 'auto',
      engine_state: 'running',
      running: true,
      running_source: 'status',
    });
    expect(s.identity.serial).toBe('123456789');
    expect(s.instruments).toEqual({
      oil_pressure_kpa: 350,
      coolant_temperature_c: 82,
      oil_temperature_c: 95,
      fuel_level_percent: 64,
      battery_voltage_v: 13.4,
      engine_speed_rpm: 1500,
      frequency_hz: 50,
      voltage_v: [230.5, 230.1, 229.9],
      current_a: [12.5, 0, 0.7],
      power_w: [2880, 0, -15],
      total_power_w: 2865,
      load_percent: 45.5,
    });
    expect(s.accumulated).toEqual({ engine_run_time_s: 4_442_400, energy_kwh: 5678.9, starts: 321 });
    expect(s.alarms).toEqual({ level: 'none', active: [] });
  });

  it('follows stopped, cooling down, the mode, hours and fuel from poll to poll', async () => {
    start();
    await poll();
    dse.registers(words({ 1408: { v: 4, width: 'u16' }, 1027: { v: 63, width: 'u16' } }));
    let s = await poll();
    expect([s.engine_state, s.running, s.instruments.fuel_level_percent]).toEqual(['cooling_down', true, 63]);
    dse.registers(
      words({
        1408: { v: 0, width: 'u16' },
        1030: { v: 0, width: 'u16' },
        772: { v: 2, width: 'u16' },
        1798: { v: 4_446_000, width: 'u32' },
      }),
    );
    s = await poll();
    expect([s.engine_state, s.running, s.mode]).toEqual(['stopped', false, 'manual']);
    expect(s.accumulated.engine_run_time_s).toBe(4_446_000);
    dse.registers(words({ 772: { v: 0, width: 'u16' } }));
    expect((await poll()).mode).toBe('stop');
    // Each change reached the bus side once; an unchanged poll publishes nothing.
    const before = published.length;
    await poll();
    expect(published.length).toBe(before);
  });

  it('reads sentinels as unknown, never as numbers', async () => {
    dse.registers({ 1025: 0x7ffc, 1027: 0xfffc, 1030: 0xffff, 1032: 0xffff, 1033: 0xfffe });
    start();
    const s = await poll();
    expect(s.instruments.coolant_temperature_c).toBeNull();
    expect(s.instruments.fuel_level_percent).toBeNull();
    expect(s.instruments.engine_speed_rpm).toBeNull();
    expect(s.instruments.voltage_v[0]).toBeNull();
    expect(s.running).toBe(true); // from 1408, which the module still reports
  });

  it('falls back to the engine speed where the module has no register 1408', async () => {
    dse.set({ missing: [1408] });
    start();
    let s = await poll();
    expect([s.engine_state, s.running, s.running_source]).toEqual([null, true, 'rpm']);
    dse.registers(words({ 1030: { v: 0, width: 'u16' } }));
    s = await poll();
    expect([s.running, s.running_source]).toEqual([false, 'rpm']);
  });

  it('decodes the Named Alarm Conditions into warning, shutdown and electrical trip', async () => {
    // Alarm 1 warning, alarm 5 shutdown, alarm 11 electrical trip; codes 1 (inactive) elsewhere.
    dse.registers({ 39425: 0x1211, 39426: 0x1311, 39427: 0x1114 });
    start();
    const s = await poll();
    expect(s.alarms).toEqual({
      level: 'shutdown',
      active: [
        { index: 1, name: null, level: 'warning' },
        { index: 5, name: null, level: 'shutdown' },
        { index: 11, name: null, level: 'electrical_trip' },
      ],
    });
  });

  it('writes the telemetry stop key and its complement where the module offers it', async () => {
    start();
    await poll();
    expect(await poller.telemetryStop()).toEqual({ written: false, reason: 'not_supported' });
    expect(dse.writes()).toEqual([]);
    dse.registers({ 4098: 0x4000 }); // function 33 of page 16's flags
    expect(await poller.telemetryStop()).toEqual({ written: true, ignoredByModel: true });
    expect(dse.writes()).toEqual([{ address: 4104, values: [35733, 29802] }]);
  });

  it('a module gone dark: values kept until the stale time, then unknown with genset_unreachable', async () => {
    start();
    expect((await poll()).running).toBe(true);
    await dse.stop();
    let s = await poll();
    expect(s).toMatchObject({ reachable: false, stale: false, running: true, warnings: [] });
    expect(s.fault).toMatch(/connection|timeout/);
    for (let t = POLL_MS; t < STALE_MS; t += POLL_MS) s = await poll();
    expect(s).toMatchObject({ reachable: false, stale: true, warnings: ['genset_unreachable'] });
    // Unknown, not stopped.
    expect([s.running, s.engine_state, s.mode, s.instruments.engine_speed_rpm]).toEqual([
      null,
      null,
      null,
      null,
    ]);
    expect(published.at(-1)?.stale).toBe(true);
    await dse.start();
    s = await poll();
    expect(s).toMatchObject({ reachable: true, stale: false, warnings: [], running: true, fault: null });
  }, 30_000);

  it.each([
    ['exception', { fault: 'exception' as const }, 'exception'],
    ['slow answers', { fault: 'slow' as const, delay: 0.8 }, 'timeout'],
    ['no answer', { fault: 'silent' as const }, 'timeout'],
    ['a reply from another unit id', { fault: 'wrong_unit' as const }, 'wrong_unit'],
    ['garbage', { fault: 'garbage' as const }, 'bad_data'],
  ])(
    '%s: the fault is reported and the values go unknown after the stale time',
    async (_, patch, fault) => {
      start();
      await poll();
      dse.set(patch);
      let s = await poll();
      if (fault) expect(s.fault).toBe(fault);
      else expect(s.fault).not.toBeNull();
      expect(s.reachable).toBe(false);
      for (let t = POLL_MS; t < STALE_MS; t += POLL_MS) s = await poll();
      expect(s).toMatchObject({ stale: true, running: null, warnings: ['genset_unreachable'] });
      dse.set({ fault: null });
      // A connection dropped after a timeout or garbage is opened again on a later poll; a slow module
      // first works off the requests it still holds.
      for (let i = 0; i < 5 && !s.reachable; i++) s = await poll();
      expect(s).toMatchObject({ reachable: true, stale: false, running: true });
    },
    30_000,
  );

  it('a wrong unit id in the settings: the module stays silent, nothing is guessed', async () => {
    start(UNIT + 1);
    let s = await poll();
    expect(s).toMatchObject({ reachable: false, fault: 'timeout', running: null });
    for (let t = POLL_MS; t < STALE_MS; t += POLL_MS) s = await poll();
    expect(s).toMatchObject({ stale: true, warnings: ['genset_unreachable'] });
  }, 30_000);
});
