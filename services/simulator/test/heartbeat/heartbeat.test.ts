import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simulator } from '@outpost/contracts';
import { ManualClock } from '@outpost/runtime/clock';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createHeartbeat,
  createSystemPinger,
  type HeartbeatStatus,
  type Pinger,
  parseSimulatorIp,
  SimulatorIpError,
} from '../../src/heartbeat/index.js';

type Hb = simulator.SimulatorHeartbeat;

const T0 = Date.UTC(2026, 10, 21, 12, 0, 0);

function rig(
  status: Partial<HeartbeatStatus> = {},
  extra: { allModes?: boolean; pinger?: Pinger; ip?: string } = {},
) {
  const clock = new ManualClock(T0);
  const sent: Hb[] = [];
  const st: HeartbeatStatus = {
    mode: 'rebroadcaster',
    running: true,
    lat: 47.5,
    lon: -122.3,
    altitude_ft: 1200,
    lastInputAtMs: null,
    lastUdpAtMs: null,
    ...status,
  };
  const hb = createHeartbeat({
    clock,
    publish: async (p) => {
      sent.push(p);
    },
    status: () => st,
    startedAtMs: T0 - 42_000,
    simulatorIp: extra.ip ?? null,
    ...(extra.pinger ? { pinger: extra.pinger } : {}),
    ...(extra.allModes !== undefined ? { allModes: extra.allModes } : {}),
  });
  return { clock, sent, st, hb };
}

const flush = () => new Promise((r) => setImmediate(r));

/** Seconds of fake time, letting each beat's publish settle as it would a second apart. */
async function seconds(clock: ManualClock, n: number) {
  for (let i = 0; i < n; i++) {
    clock.advance(1000);
    await flush();
  }
}

async function until(cond: () => boolean, ms = 5000) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('heartbeat payload and cadence', () => {
  it('a rebroadcaster beats once on start and then every second, each payload valid for the contract', async () => {
    const { clock, sent, hb } = rig();
    hb.start();
    await flush();
    expect(sent).toHaveLength(1);
    for (let i = 0; i < 5; i++) {
      clock.advance(1000);
      await flush();
    }
    expect(sent).toHaveLength(6);
    for (const p of sent) expect(simulator.SimulatorHeartbeat.safeParse(p).success).toBe(true);
    expect(sent[0]).toMatchObject({
      uptime_seconds: 42,
      mode: 'rebroadcaster',
      running: true,
      lat: 47.5,
      lon: -122.3,
    });
    expect(sent[5]?.uptime_seconds).toBe(47);
    expect(sent[5]?.timestamp_ms).toBe(T0 + 5000);
    hb.stop();
    clock.advance(5000);
    await flush();
    expect(sent).toHaveLength(6);
    expect(clock.pending()).toBe(0);
  });

  it('receiving_udp is true for a packet under 5 s old and false from 5 s on', async () => {
    const { clock, sent, st, hb } = rig({ lastUdpAtMs: T0 - 4000, lastInputAtMs: T0 - 4000 });
    hb.start();
    await flush();
    expect(sent[0]?.receiving_udp).toBe(true);
    expect(sent[0]?.last_input_age_seconds).toBe(4);
    clock.advance(1000);
    await flush();
    expect(sent[1]?.receiving_udp).toBe(false);
    expect(sent[1]?.last_input_age_seconds).toBe(5);
    st.lastUdpAtMs = clock.now() - 300;
    clock.advance(1000);
    await flush();
    expect(sent[2]?.receiving_udp).toBe(true);
    hb.stop();
  });

  it('never received anything: receiving_udp false and no input age', () => {
    const { hb } = rig();
    expect(hb.current()).toMatchObject({
      receiving_udp: false,
      last_input_age_seconds: null,
      sim_reachable: false,
    });
  });

  it('a position out of range is reported as unknown rather than breaking the payload', () => {
    const { hb } = rig({ lat: Number.NaN, lon: 10 });
    const p = hb.current();
    expect(p.lat).toBeNull();
    expect(p.lon).toBeNull();
    expect(simulator.SimulatorHeartbeat.safeParse(p).success).toBe(true);
  });

  it('other modes stay silent unless every mode is enabled', async () => {
    const quiet = rig({ mode: 'sender' });
    quiet.hb.start();
    await seconds(quiet.clock, 3);
    expect(quiet.sent).toHaveLength(0);
    quiet.hb.stop();

    const loud = rig({ mode: 'sender' }, { allModes: true });
    loud.hb.start();
    await flush();
    await seconds(loud.clock, 3);
    expect(loud.sent.map((p) => p.mode)).toEqual(['sender', 'sender', 'sender', 'sender']);
    loud.hb.stop();
  });

  it('switching into rebroadcaster mode starts the beats without a restart', async () => {
    const { clock, sent, st, hb } = rig({ mode: null, running: false });
    hb.start();
    clock.advance(2000);
    await flush();
    expect(sent).toHaveLength(0);
    st.mode = 'rebroadcaster';
    clock.advance(1000);
    await flush();
    expect(sent).toHaveLength(1);
    hb.stop();
  });

  it('a failing publish is reported and the next beat still goes out; a stuck one is not stacked', async () => {
    const clock = new ManualClock(T0);
    const errors: unknown[] = [];
    let calls = 0;
    let release: (() => void) | null = null;
    const hb = createHeartbeat({
      clock,
      startedAtMs: T0,
      status: () => ({
        mode: 'rebroadcaster',
        running: false,
        lat: null,
        lon: null,
        altitude_ft: null,
        lastInputAtMs: null,
        lastUdpAtMs: null,
      }),
      publish: () => {
        calls++;
        if (calls === 1) return Promise.reject(new Error('broker gone'));
        return new Promise<void>((r) => {
          release = r;
        });
      },
      onError: (e) => errors.push(e),
    });
    hb.start();
    await flush();
    expect(errors).toHaveLength(1);
    clock.advance(1000);
    await flush();
    expect(calls).toBe(2);
    clock.advance(3000);
    await flush();
    expect(calls).toBe(2);
    (release as unknown as () => void)();
    await flush();
    clock.advance(1000);
    await flush();
    expect(calls).toBe(3);
    hb.stop();
  });
});

describe('SIMULATOR_IP', () => {
  it('accepts IPv4 and IPv6 literals, host names and empty', () => {
    expect(parseSimulatorIp('127.0.0.1')).toBe('127.0.0.1');
    expect(parseSimulatorIp(' ::1 ')).toBe('::1');
    expect(parseSimulatorIp('localhost')).toBe('localhost');
    expect(parseSimulatorIp('rig-3.sim-center.example.')).toBe('rig-3.sim-center.example.');
    expect(parseSimulatorIp('')).toBeNull();
    expect(parseSimulatorIp(undefined)).toBeNull();
  });

  it.each(['127.0.0.1; touch /tmp/x', '-f', '127.0.0.1 -f', '$(id)', '300.1.1.1', 'rig_3', 'a..b', '-rig'])(
    'refuses %s',
    (v) => {
      expect(() => parseSimulatorIp(v)).toThrow(SimulatorIpError);
      expect(() => parseSimulatorIp(v)).toThrow(
        /SIMULATOR_IP must be an IPv4 or IPv6 address or a host name/,
      );
    },
  );

  it('a heartbeat with an IP but no pinger is a configuration error', () => {
    expect(() => rig({}, { ip: '127.0.0.1' })).toThrow(/pinger is required/);
  });

  it('a shell-looking SIMULATOR_IP is refused before anything runs', () => {
    expect(() => createSystemPinger({ ip: '127.0.0.1;id' })).toThrow(SimulatorIpError);
  });
});

describe('ICMP reachability through the system ping', () => {
  let dir: string | null = null;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = null;
  });

  it('sim_reachable becomes true for 127.0.0.1 and the payload names the target', async () => {
    const pinger = createSystemPinger({ ip: '127.0.0.1' });
    const { clock, sent, hb } = rig({}, { ip: '127.0.0.1', pinger });
    hb.start();
    await flush();
    expect(sent[0]?.sim_reachable).toBe(false);
    expect(sent[0]?.simulator_ip).toBe('127.0.0.1');
    await until(() => pinger.reachable());
    clock.advance(1000);
    await flush();
    expect(sent.at(-1)?.sim_reachable).toBe(true);
    hb.stop();
  });

  it('a failed probe reports unreachable', async () => {
    const pinger = createSystemPinger({ ip: '127.0.0.1', command: '/bin/true' });
    pinger.refresh();
    await until(() => pinger.reachable());
    const failing = createSystemPinger({ ip: '127.0.0.1', command: '/bin/false' });
    failing.refresh();
    await new Promise((r) => setTimeout(r, 200));
    expect(failing.reachable()).toBe(false);
  });

  it('a missing ping executable is reported once and counts as unreachable', async () => {
    const reasons: string[] = [];
    const pinger = createSystemPinger({
      ip: '127.0.0.1',
      command: '/nonexistent/ping',
      onUnavailable: (r) => reasons.push(r),
    });
    pinger.refresh();
    await until(() => reasons.length > 0);
    pinger.refresh();
    await new Promise((r) => setTimeout(r, 100));
    expect(reasons).toEqual(['/nonexistent/ping: ENOENT']);
    expect(pinger.reachable()).toBe(false);
  });

  it('a slow probe never delays a beat and only one probe runs at a time', async () => {
    dir = mkdtempSync(join(tmpdir(), 'hb-ping-'));
    const log = join(dir, 'calls');
    const script = join(dir, 'slow-ping');
    writeFileSync(script, `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nsleep 1.5\nexit 0\n`);
    chmodSync(script, 0o755);
    const pinger = createSystemPinger({ ip: '127.0.0.1', command: script });
    const { clock, sent, hb } = rig({}, { ip: '127.0.0.1', pinger });
    let slowest = 0;
    const timed = (fn: () => void) => {
      const t = performance.now();
      fn();
      slowest = Math.max(slowest, performance.now() - t);
    };
    timed(() => hb.start());
    await flush();
    for (let i = 0; i < 3; i++) {
      timed(() => clock.advance(1000));
      await flush();
    }
    // The probe takes 1.5 s; a beat must not wait for it (spawning the process is the only cost).
    expect(slowest).toBeLessThan(500);
    expect(sent).toHaveLength(4);
    expect(sent.every((p) => p.sim_reachable === false)).toBe(true);
    await until(() => pinger.reachable(), 4000);
    const calls = readFileSync(log, 'utf8').trim().split('\n');
    expect(calls).toEqual(['-n -c 1 -W 1 127.0.0.1']);
    hb.stop();
  });
});
