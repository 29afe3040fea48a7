import { ManualClock } from '@outpost/runtime/clock';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GensetPoller } from '../../src/genset/poller.js';
import type { GensetSettings } from '../../src/genset/settings.js';
import { ModbusSerialIo } from '../../src/genset/transport.js';
import { silentLog } from '../helpers.js';
import { dse4520Running, type FakeDse, startFakeDse, startPtyPair, words } from './fake-dse.js';

const POLL_MS = 1000;
const STALE_MS = 4000;

describe('genset reader over Modbus RTU: a socat pseudo-terminal pair to the same fake DSE 4520 MkII', () => {
  let pty: Awaited<ReturnType<typeof startPtyPair>>;
  let dse: FakeDse;
  let clock: ManualClock;
  let poller: GensetPoller;

  const poll = async () => {
    await poller.settled();
    clock.advance(POLL_MS);
    await poller.settled();
    return poller.state();
  };

  beforeAll(async () => {
    pty = await startPtyPair();
    dse = await startFakeDse({ unit: 10, registers: dse4520Running() }, { serial: pty.module, baud: 19200 });
  }, 30_000);
  afterAll(async () => {
    await dse?.close();
    await pty?.close();
  });
  beforeEach(() => {
    dse.set({ registers: dse4520Running(), fault: null });
    const settings: GensetSettings = {
      transport: 'rtu',
      device: pty.node,
      baudRate: 19200,
      parity: 'none',
      stopBits: 1,
      unitId: 10,
      pollMs: POLL_MS,
      timeoutMs: 400,
      staleMs: STALE_MS,
    };
    clock = new ManualClock();
    poller = new GensetPoller({ io: new ModbusSerialIo(settings), settings, clock, log: silentLog });
    poller.start();
  });
  afterEach(async () => {
    await poller.stop();
  });

  it('reads the same values as over TCP, and follows changes', async () => {
    let s = await poll();
    expect(s).toMatchObject({
      transport: 'rtu',
      reachable: true,
      mode: 'auto',
      engine_state: 'running',
      running: true,
      identity: { model: '4520 MkII', serial: '123456789' },
      accumulated: { engine_run_time_s: 4_442_400, energy_kwh: 5678.9, starts: 321 },
    });
    expect(s.instruments).toMatchObject({
      coolant_temperature_c: 82,
      fuel_level_percent: 64,
      voltage_v: [230.5, 230.1, 229.9],
    });
    dse.registers({
      ...words({ 1408: { v: 4, width: 'u16' }, 772: { v: 2, width: 'u16' }, 1027: { v: 40, width: 'u16' } }),
      39425: 0x1311,
    });
    s = await poll();
    expect([s.engine_state, s.mode, s.instruments.fuel_level_percent, s.alarms.level]).toEqual([
      'cooling_down',
      'manual',
      40,
      'shutdown',
    ]);
  });

  it.each([
    ['garbage on the line', 'garbage' as const, ['crc']],
    ['no answer', 'silent' as const, ['timeout']],
  ])(
    '%s: the fault is reported, values go unknown after the stale time, and it recovers',
    async (_, fault, faults) => {
      await poll();
      dse.set({ fault });
      let s = await poll();
      expect(faults).toContain(s.fault);
      for (let t = POLL_MS; t < STALE_MS; t += POLL_MS) s = await poll();
      expect(s).toMatchObject({ stale: true, running: null, warnings: ['genset_unreachable'] });
      dse.set({ fault: null });
      for (let i = 0; i < 5 && !s.reachable; i++) s = await poll();
      expect(s).toMatchObject({ reachable: true, stale: false, running: true });
    },
    30_000,
  );
});

describe('genset reader over Modbus RTU with the adapter unplugged', () => {
  it('reports a connection fault, goes unknown after the stale time, and nothing throws', async () => {
    const settings: GensetSettings = {
      transport: 'rtu',
      device: '/dev/serial/by-id/usb-outpost-test-adapter-that-is-not-there',
      baudRate: 19200,
      parity: 'none',
      stopBits: 1,
      unitId: 10,
      pollMs: POLL_MS,
      timeoutMs: 400,
      staleMs: STALE_MS,
    };
    const clock = new ManualClock();
    const poller = new GensetPoller({ io: new ModbusSerialIo(settings), settings, clock, log: silentLog });
    poller.start();
    try {
      await poller.settled();
      expect(poller.state()).toMatchObject({
        reachable: false,
        fault: 'connection',
        stale: false,
        running: null,
      });
      for (let t = 0; t < STALE_MS; t += POLL_MS) {
        clock.advance(POLL_MS);
        await poller.settled();
      }
      expect(poller.state()).toMatchObject({ stale: true, warnings: ['genset_unreachable'] });
    } finally {
      await poller.stop();
    }
  });
});
